import { type Document, ObjectId } from "mongodb";
import { type BenchContext, scratchLike } from "../context.js";
import { BATCH_SIZE, eventBatch, storedEvent } from "../data.js";
import { formatCount, log, progress } from "../progress.js";
import { ratio, runConcurrently } from "../stats.js";

export interface IngestPhaseResult {
  concurrency: number;
  events: number;
  apiEventsPerSecond: number;
  rawEventsPerSecond: number;
  /** API time / raw time for the same events: 1 means the service adds nothing. */
  ratio: number;
}

export interface MemoryResult {
  startRssMb: number;
  /** The highest RSS sampled (every 200 ms) during the ingestion. */
  peakRssMb: number;
  /** VmHWM: the highest RSS of the server's whole life so far, start-up included. */
  highWaterRssMb: number;
  /** After the ingestion, once the server has been idle for a while. */
  afterRssMb: number;
  afterIdleSeconds: number;
  databasePeakRssMb: number | undefined;
}

export interface IngestResult {
  events: number;
  phases: IngestPhaseResult[];
  ratio: number;
  memory: MemoryResult;
}

/** The raw baseline writes the fields the service stores: checked, so that a change of shape cannot skew it unseen. */
async function assertBaselineShape(context: BenchContext) {
  const stored = await context.db.collection("events").findOne({ accountId: context.api.accountId });
  const input = eventBatch(0, context.customerIds.length)[0]!;
  const mirror = storedEvent(context.api.accountId, new ObjectId(), input, new Date());
  const keys = (doc: Document) => Object.keys(doc).sort().join(",");
  if (!stored || keys(stored) !== keys(mirror)) {
    throw new Error(
      `the raw baseline's event documents (${keys(mirror)}) no longer match the stored ones ` +
        `(${stored && keys(stored)})`,
    );
  }
}

const MEMORY_SAMPLE_MS = 200;

/**
 * Sends every event through `POST /events` in batches of 1,000, phase by phase at rising concurrency, and the same
 * batches through the raw driver's insertMany into a scratch collection with the same indexes. The two alternate
 * in slices, so both see the same collection sizes and the same noise. `atCheckpoint` runs when the stored count
 * reaches each of the sizes' query checkpoints.
 */
export async function benchIngestion(
  context: BenchContext,
  atCheckpoint: (stored: number) => Promise<void>,
): Promise<IngestResult> {
  const { sizes } = context.options;
  const customers = context.customerIds.length;
  const scratch = await scratchLike(context.db, "events", "bench_raw_events");
  const checkpoints = [...sizes.queryCheckpoints];
  const total = sizes.ingestPhases.at(-1)!.upTo;

  const startRssMb = context.server.memory().rssMb;
  let peakRssMb = startRssMb;
  let databasePeakRssMb: number | undefined;
  const sampler = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, context.server.memory().rssMb);
    const database = context.server.databaseMemory();
    if (database) databasePeakRssMb = Math.max(databasePeakRssMb ?? 0, database.rssMb);
  }, MEMORY_SAMPLE_MS);

  const phases: IngestPhaseResult[] = [];
  let stored = 0;
  let slice = 0;
  try {
    for (const { concurrency, upTo } of sizes.ingestPhases) {
      const phaseStart = stored;
      let apiMs = 0;
      let rawMs = 0;
      while (stored < upTo) {
        const sliceEnd = Math.min(upTo, checkpoints[0] ?? upTo, stored + concurrency * 2 * BATCH_SIZE);
        const firstBatch = stored / BATCH_SIZE;
        const batches = Array.from({ length: (sliceEnd - stored) / BATCH_SIZE }, (_, offset) =>
          eventBatch(firstBatch + offset, customers),
        );
        // One batch id per insertMany, as the service has one per POST /events.
        const rawDocs = batches.map((batch) => {
          const batchId = new ObjectId();
          return batch.map((input) => storedEvent(context.api.accountId, batchId, input, new Date()));
        });

        const viaApi = async () => {
          const started = performance.now();
          await runConcurrently(batches.length, concurrency, async (index) => {
            const result = await context.api.call<{ stored: number }>("POST", "/events", { events: batches[index] });
            if (result.stored !== BATCH_SIZE)
              throw new Error(`a batch stored ${result.stored} events, not ${BATCH_SIZE}`);
          });
          apiMs += performance.now() - started;
        };
        const viaDriver = async () => {
          const started = performance.now();
          await runConcurrently(rawDocs.length, concurrency, (index) =>
            scratch.insertMany(rawDocs[index]!, { ordered: false }),
          );
          rawMs += performance.now() - started;
        };
        // Alternating which goes first cancels any advantage of going first (warm caches, a quieter moment).
        if (slice % 2 === 0) await viaApi().then(viaDriver);
        else await viaDriver().then(viaApi);
        if (slice === 0) await assertBaselineShape(context);
        slice += 1;
        stored = sliceEnd;

        const done = stored - phaseStart;
        progress(
          `ingest at concurrency ${concurrency}: ${formatCount(stored)} / ${formatCount(total)} events ` +
            `(API ${formatCount((done / apiMs) * 1000)}/s, raw ${formatCount((done / rawMs) * 1000)}/s, server RSS ` +
            `${Math.round(peakRssMb)} MiB peak)`,
        );
        if (stored === checkpoints[0]) {
          checkpoints.shift();
          await atCheckpoint(stored);
        }
      }
      const events = stored - phaseStart;
      phases.push({
        concurrency,
        events,
        apiEventsPerSecond: (events / apiMs) * 1000,
        rawEventsPerSecond: (events / rawMs) * 1000,
        ratio: ratio(apiMs, rawMs),
      });
      log(`ingestion at concurrency ${concurrency}: API/raw ${ratio(apiMs, rawMs).toFixed(2)}`);
    }
  } finally {
    clearInterval(sampler);
  }

  await scratch.drop();
  const idleSeconds = sizes.memoryIdleSeconds;
  log(`ingestion done; letting the server idle ${idleSeconds} s to see its memory settle`);
  await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
  const { rssMb: afterRssMb, peakRssMb: highWaterMb } = context.server.memory();

  const totalApi = phases.reduce((sum, phase) => sum + phase.events / phase.apiEventsPerSecond, 0);
  const totalRaw = phases.reduce((sum, phase) => sum + phase.events / phase.rawEventsPerSecond, 0);
  return {
    events: stored,
    phases,
    ratio: ratio(totalApi, totalRaw),
    memory: {
      startRssMb,
      peakRssMb,
      highWaterRssMb: highWaterMb,
      afterRssMb,
      afterIdleSeconds: idleSeconds,
      databasePeakRssMb,
    },
  };
}
