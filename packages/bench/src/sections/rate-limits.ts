import { createRateLimitRepository } from "@billing/server";
import type { BenchContext } from "../context.js";
import { progress } from "../progress.js";
import { interleavedRounds, type LatencySummary, ratio, runConcurrently, summarize } from "../stats.js";

export interface RateLimitsResult {
  /** A call admitted: the window count's upsert and the insert of its slot. */
  admitted: LatencySummary;
  /** A call refused, its window full: the upsert alone (what every call cost when counting was `$inc` only). */
  refused: LatencySummary;
  /** admitted p50 / refused p50: the slot insert's share on top of the count. */
  admittedToRefused: number;
  /** A burst at concurrency 16 against a limit of half its calls. */
  burst: { concurrency: number; calls: number; limit: number; admitted: number; latency: LatencySummary };
}

const WINDOW_MS = 60_000;
const BURST_CONCURRENCY = 16;

/**
 * What rate limiting costs per call: the rate-limit repository's `admit`, as the service runs it before every
 * authenticated call, on the server's own database, for a call admitted and a call refused (alternately), then
 * a concurrent burst that must be admitted exactly up to its limit.
 */
export async function benchRateLimits(context: BenchContext): Promise<RateLimitsResult> {
  const rateLimits = createRateLimitRepository(context.db);
  const run = `bench-${Date.now()}`;
  const window = () => {
    const start = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
    return [new Date(start), new Date(start + WINDOW_MS)] as const;
  };
  const admit = (counter: string, limit: number) => rateLimits.admit(counter, limit, ...window());

  await admit(`${run}/full`, 1); // takes the only slot: every later call of this counter is refused
  const samples = await interleavedRounds(
    {
      admitted: async () => {
        if ((await admit(`${run}/open`, Number.MAX_SAFE_INTEGER)) === undefined)
          throw new Error("a call within the limit was refused");
      },
      refused: async () => {
        if ((await admit(`${run}/full`, 1)) !== undefined) throw new Error("a call past the limit was admitted");
      },
    },
    { seconds: context.options.sizes.seriesSeconds * 2, minRounds: 50, maxRounds: 2000 },
    (rounds) => progress(`rate limits: round ${rounds}`),
  );

  const calls = context.options.quick ? 200 : 1000;
  const limit = calls / 2;
  let admitted = 0;
  const latencies = await runConcurrently(calls, BURST_CONCURRENCY, async () => {
    if ((await admit(`${run}/burst`, limit)) !== undefined) admitted += 1;
  });
  if (admitted !== limit) throw new Error(`a burst of ${calls} calls with a limit of ${limit} admitted ${admitted}`);

  const admittedSummary = summarize(samples.admitted);
  const refusedSummary = summarize(samples.refused);
  return {
    admitted: admittedSummary,
    refused: refusedSummary,
    admittedToRefused: ratio(admittedSummary.p50Ms, refusedSummary.p50Ms),
    burst: { concurrency: BURST_CONCURRENCY, calls, limit, admitted, latency: summarize(latencies) },
  };
}
