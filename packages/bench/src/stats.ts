/** Milliseconds since an arbitrary origin, sub-millisecond. */
export const now = () => performance.now();

/** Nearest-rank percentile of the samples (p in 0..100). */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface LatencySummary {
  samples: number;
  p50Ms: number;
  p99Ms: number;
}

export const summarize = (samples: number[]): LatencySummary => ({
  samples: samples.length,
  p50Ms: percentile(samples, 50),
  p99Ms: percentile(samples, 99),
});

/** How long `work` took, in milliseconds. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = now();
  await work();
  return now() - started;
}

/** Runs `work(0..count-1)` with at most `concurrency` in flight; returns each call's latency. */
export async function runConcurrently(
  count: number,
  concurrency: number,
  work: (index: number) => Promise<unknown>,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      latencies.push(await timed(() => work(index)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return latencies;
}

/**
 * Times several series in interleaved rounds (one sample of each per round), so that a noisy neighbour
 * slows all of them alike. Stops after `minRounds` once `seconds` have passed, or at `maxRounds`.
 */
export async function interleavedRounds<K extends string>(
  series: Record<K, (round: number) => Promise<unknown>>,
  { seconds, minRounds = 3, maxRounds = 200 }: { seconds: number; minRounds?: number; maxRounds?: number },
  onRound?: (round: number) => void,
): Promise<Record<K, number[]>> {
  const keys = Object.keys(series) as K[];
  const samples = Object.fromEntries(keys.map((key) => [key, [] as number[]])) as Record<K, number[]>;
  const started = now();
  for (let round = 0; round < maxRounds; round += 1) {
    if (round >= minRounds && now() - started >= seconds * 1000) break;
    for (const key of keys) samples[key].push(await timed(() => series[key](round)));
    onRound?.(round + 1);
  }
  return samples;
}

export const ratio = (numerator: number, denominator: number) =>
  denominator > 0 ? numerator / denominator : Number.NaN;
