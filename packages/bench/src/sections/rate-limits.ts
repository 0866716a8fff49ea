import { createRateLimitRepository } from "@billing/server";
import { type Db, MongoClient } from "mongodb";
import type { BenchOptions } from "../options.js";
import { progress } from "../progress.js";
import { startServer } from "../server.js";
import { interleavedRounds, type LatencySummary, ratio, runConcurrently, summarize } from "../stats.js";

export interface RateLimitsResult {
  /** A call admitted by the instance that knows the window: the insert of its slot. */
  admitted: LatencySummary;
  /**
   * A call refused, its window full, by an instance that has not seen the window (another one, or after a restart):
   * its insert of slot 1, refused on the key. The instance that took the last slot refuses with no database work.
   */
  refused: LatencySummary;
  /** admitted p50 / refused p50. */
  admittedToRefused: number;
  /** A plain read on the same database: one document by `_id` (a slot), what a GET's lookup costs. */
  read: LatencySummary;
  /** admitted p50 / read p50: what the slot's insert costs per call, in reads. */
  admittedToRead: number;
  /** refused p50 / read p50: the failed insert, in reads. */
  refusedToRead: number;
  /** A burst at concurrency 16 against a limit of half its calls. */
  burst: { concurrency: number; calls: number; limit: number; admitted: number; latency: LatencySummary };
}

const BURST_CONCURRENCY = 16;
/**
 * How long the one window the section holds lasts. The repository writes the same whatever a window's length (its
 * start is in the slot's `_id`, its end gives `expiresAt`); an hour, not the service's minute, so that neither the
 * window's end nor the server's purge of spent slots (a window's length after its end) falls inside the section.
 */
const HELD_WINDOW_MS = 3_600_000;

/**
 * What rate limiting costs per call: the rate-limit repository's `admit`, as the service runs it before every
 * authenticated call, on the server's own database, for a call admitted, a call refused by an instance that has not
 * seen the window and a plain read by `_id`
 * (in turn, round by round), then a concurrent burst that must be admitted exactly up to its limit.
 * Every call falls in one window, held for the whole section: a window computed per call would change at a minute's
 * end, where the refused call would find slot 1 of the next window free and the read the slot not there yet.
 */
export async function benchRateLimits(db: Db, options: BenchOptions): Promise<RateLimitsResult> {
  const rateLimits = createRateLimitRepository(db);
  const slots = db.collection<{ _id: string }>("rateLimitSlots");
  const run = `bench-${Date.now()}`;
  const windowStart = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  const window = [windowStart, new Date(windowStart.getTime() + HELD_WINDOW_MS)] as const;
  const admit = (counter: string, limit: number) => rateLimits.admit(counter, limit, ...window);

  await admit(`${run}/full`, 1); // takes the only slot: every later call of this counter is refused
  const fullSlot = `${run}/full/${windowStart.toISOString()}/1`;
  const samples = await interleavedRounds(
    {
      admitted: async () => {
        if ((await admit(`${run}/open`, Number.MAX_SAFE_INTEGER)) === undefined)
          throw new Error("a call within the limit was refused");
      },
      refused: async () => {
        const unseen = createRateLimitRepository(db);
        if ((await unseen.admit(`${run}/full`, 1, ...window)) !== undefined) {
          throw new Error("a call past the limit was admitted");
        }
      },
      read: async () => {
        if (!(await slots.findOne({ _id: fullSlot }))) throw new Error("the full window's slot was not found");
      },
    },
    { seconds: options.sizes.seriesSeconds * 2, minRounds: 50, maxRounds: 2000 },
    (rounds) => progress(`rate limits: round ${rounds}`),
  );

  const calls = options.sizes.rateLimitBurst;
  const limit = calls / 2;
  let admitted = 0;
  const latencies = await runConcurrently(calls, BURST_CONCURRENCY, async () => {
    if ((await admit(`${run}/burst`, limit)) !== undefined) admitted += 1;
  });
  if (admitted !== limit) throw new Error(`a burst of ${calls} calls with a limit of ${limit} admitted ${admitted}`);

  const admittedSummary = summarize(samples.admitted);
  const refusedSummary = summarize(samples.refused);
  const readSummary = summarize(samples.read);
  return {
    admitted: admittedSummary,
    refused: refusedSummary,
    admittedToRefused: ratio(admittedSummary.p50Ms, refusedSummary.p50Ms),
    read: readSummary,
    admittedToRead: ratio(admittedSummary.p50Ms, readSummary.p50Ms),
    refusedToRead: ratio(refusedSummary.p50Ms, readSummary.p50Ms),
    burst: { concurrency: BURST_CONCURRENCY, calls, limit, admitted, latency: summarize(latencies) },
  };
}

/** Section 7 alone (`pnpm bench --only rate-limits`): on a server of its own, on a fresh embedded database. */
export async function benchRateLimitsAlone(options: BenchOptions): Promise<RateLimitsResult> {
  const server = await startServer({});
  const client = await MongoClient.connect(server.databaseUri);
  try {
    return await benchRateLimits(client.db(server.databaseName), options);
  } finally {
    await client.close();
    await server.stop();
  }
}
