import type { RateLimitBucket, SpentAllowances } from "../context.js";

/** Tokens remembered at most: past it the oldest is forgotten (its calls then pay the database check again). */
const MAX_REMEMBERED = 10_000;

/**
 * The allowances (token and bucket) that the rate limit refused on this instance, each until its window ends. A
 * window's slots only fill, so a refusal holds for the rest of the window on every instance: a later call of the
 * same token and bucket is refused from this memory, before authentication and before any database read or write.
 * Keyed by the hash of the token presented, as the token's slots are.
 */
export function createSpentAllowances(now: () => number = Date.now): SpentAllowances {
  const untilMs = new Map<string, number>();
  const keyOf = (tokenHash: string, bucket: RateLimitBucket) => `${tokenHash}/${bucket}`;
  return {
    remember(tokenHash: string, bucket: RateLimitBucket, windowEndMs: number) {
      const key = keyOf(tokenHash, bucket);
      untilMs.delete(key);
      untilMs.set(key, windowEndMs);
      if (untilMs.size > MAX_REMEMBERED) untilMs.delete(untilMs.keys().next().value as string);
    },
    /** When the token's allowance of `bucket` comes back (ms since the epoch), if it is spent now. */
    spentUntil(tokenHash: string, bucket: RateLimitBucket): number | undefined {
      const key = keyOf(tokenHash, bucket);
      const end = untilMs.get(key);
      if (end === undefined) return undefined;
      if (end > now()) return end;
      untilMs.delete(key);
      return undefined;
    },
  };
}
