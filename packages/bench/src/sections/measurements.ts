import { type Document, ObjectId } from "mongodb";
import { ApiError } from "../api.js";
import { type BenchContext, insertCopies, scratchLike } from "../context.js";
import { formatCount, log, progress } from "../progress.js";
import { type LatencySummary, ratio, runConcurrently, summarize } from "../stats.js";

export interface MeasurementLevelResult {
  concurrency: number;
  requests: number;
  /** API calls answered with another status than 200 (e.g. 500 when the database gave up on a lock). */
  apiFailures: number;
  rawFailures: number;
  apiPerSecond: number;
  rawPerSecond: number;
  api: LatencySummary;
  raw: LatencySummary;
  /** API time per upsert / raw time per upsert. */
  ratio: number;
}

export interface MeasurementsResult {
  storedMeasurements: number;
  levels: MeasurementLevelResult[];
}

const METER = "api-calls";
const USAGE_DATE = { year: 2026, month: 1, day: 15 };

/**
 * `POST /measurements` replacing the day's value of one customer after another, against the raw driver's upsert
 * (the same findOneAndUpdate the measurements repository sends) on a scratch collection with the same indexes and
 * the same documents. Both collections hold one measurement per customer, so every call is an update in place.
 */
export async function benchMeasurements(context: BenchContext): Promise<MeasurementsResult> {
  const { customerIds, api } = context;
  const measurements = context.db.collection("measurements");
  const scratch = await scratchLike<Document>(context.db, "measurements", "bench_raw_measurements");

  const body = (customer: number, value: number) => ({
    customerId: customerIds[customer % customerIds.length],
    meterId: METER,
    usageDate: USAGE_DATE,
    value,
  });
  await api.call("POST", "/measurements", body(0, 1));
  const template = await measurements.findOne({ accountId: api.accountId, meterId: METER });
  if (!template) throw new Error("the measurement written through the API is not in the measurements collection");
  const { _id, ...fields } = template;
  await insertCopies(
    measurements,
    fields,
    customerIds.length - 1,
    (index) => ({ customerId: customerIds[index + 1] }),
    "measurements (API collection)",
  );
  await insertCopies(
    scratch,
    fields,
    customerIds.length,
    (index) => ({ customerId: customerIds[index] }),
    "measurements (scratch collection)",
  );

  const rawUpsert = (customer: number, value: number) => {
    const at = new Date();
    return scratch.findOneAndUpdate(
      {
        accountId: template.accountId,
        customerId: customerIds[customer % customerIds.length],
        meterId: template.meterId,
        day: template.day,
      },
      {
        $set: { valueMicros: BigInt(Math.round(value * 1e6)), updatedAt: at },
        $setOnInsert: { _id: new ObjectId(), createdAt: at },
      },
      { upsert: true, returnDocument: "after", useBigInt64: true },
    );
  };

  const levels: MeasurementLevelResult[] = [];
  let next = 0;
  for (const concurrency of context.options.sizes.measurementConcurrencies) {
    const sliceSize = Math.max(8, concurrency);
    const latencies = { api: [] as number[], raw: [] as number[] };
    const failures = { api: 0, raw: 0 };
    const wallMs = { api: 0, raw: 0 };
    const run = async (side: "api" | "raw") => {
      const first = next;
      next += sliceSize;
      const started = performance.now();
      const sliceLatencies = await runConcurrently(sliceSize, concurrency, async (index) => {
        const value = (first + index) / 1000;
        try {
          await (side === "api"
            ? api.call("POST", "/measurements", body(first + index, value))
            : rawUpsert(first + index, value));
        } catch (error) {
          // A limit the benchmark must raise (main.ts), not a finding about the service: it stops the run.
          if (error instanceof ApiError && error.status === 429)
            throw new Error(
              `refused 429 at concurrency ${concurrency}, a limit the benchmark must raise: ${error.message}`,
            );
          failures[side] += 1;
          if (failures[side] === 1)
            log(`first ${side} failure at concurrency ${concurrency}: ${String(error).slice(0, 300)}`);
        }
      });
      wallMs[side] += performance.now() - started;
      latencies[side].push(...sliceLatencies);
    };
    const started = performance.now();
    for (
      let slice = 0;
      slice < 2 || performance.now() - started < context.options.sizes.seriesSeconds * 2000;
      slice += 1
    ) {
      if (slice % 2 === 0) await run("api").then(() => run("raw"));
      else await run("raw").then(() => run("api"));
      progress(
        `measurements at concurrency ${concurrency}: ${formatCount(latencies.api.length)} API and ` +
          `${formatCount(latencies.raw.length)} raw upserts`,
      );
    }
    const requests = latencies.api.length;
    levels.push({
      concurrency,
      requests,
      apiFailures: failures.api,
      rawFailures: failures.raw,
      apiPerSecond: (requests / wallMs.api) * 1000,
      rawPerSecond: (latencies.raw.length / wallMs.raw) * 1000,
      api: summarize(latencies.api),
      raw: summarize(latencies.raw),
      ratio: ratio(wallMs.api / requests, wallMs.raw / latencies.raw.length),
    });
    log(`measurements at concurrency ${concurrency}: API/raw ${levels.at(-1)!.ratio.toFixed(2)}`);
  }
  await scratch.drop();
  return { storedMeasurements: customerIds.length, levels };
}
