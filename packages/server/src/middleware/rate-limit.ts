import { bearerToken, hashToken } from "../auth/tokens.js";
import type { Context, RateLimitBucket, RateLimits, SetHeader, SpentAllowances } from "../context.js";
import { DomainError } from "../domain/errors.js";
import type { RateLimitRepository } from "../repositories/rate-limits.js";
import { accountMiddleware } from "./authenticate.js";

/** Where a call of `bucket` stands in the fixed window holding `now`. */
function windowOf(limits: RateLimits, bucket: RateLimitBucket, now: number) {
  const limit = bucket === "ingest" ? limits.ingestPerWindow : limits.perWindow;
  const windowMs = limits.windowSeconds * 1000;
  const startMs = Math.floor(now / windowMs) * windowMs;
  return { limit, startMs, endMs: startMs + windowMs };
}

/** The 429 of a spent allowance, its `Retry-After` the seconds to the window's end. */
function spentAllowance(
  limits: RateLimits,
  bucket: RateLimitBucket,
  { limit, endMs }: { limit: number; endMs: number },
  setHeader: SetHeader,
  now: number,
) {
  const resetSeconds = Math.max(1, Math.ceil((endMs - now) / 1000));
  setHeader("RateLimit-Limit", String(limit));
  setHeader("RateLimit-Remaining", "0");
  setHeader("RateLimit-Reset", String(resetSeconds));
  setHeader("Retry-After", String(resetSeconds));
  const what = bucket === "ingest" ? "ingestion requests" : "requests";
  const window = `${limits.windowSeconds} s`;
  const message = `Rate limit exceeded: ${limit} ${what} per ${window} for this token; retry in ${resetSeconds} s`;
  return new DomainError("TOO_MANY_REQUESTS", message);
}

/**
 * Admits a call of `tokenId` into the current fixed window (exactly `limit` calls are admitted, on both engines)
 * and tells the caller where it stands through the `RateLimit-*` headers; past the limit, answers 429 with
 * `Retry-After` (seconds to the next window), and this instance remembers the allowance as spent until then.
 */
async function enforceRateLimit(
  counters: RateLimitRepository,
  limits: RateLimits,
  call: { tokenId: string; bucket: RateLimitBucket; presented: string | undefined },
  { setHeader, spent }: { setHeader: SetHeader; spent: SpentAllowances | undefined },
  now = Date.now(),
): Promise<void> {
  const window = windowOf(limits, call.bucket, now);
  const counter = `${call.tokenId}/${call.bucket}`;
  const slot = await counters.admit(counter, window.limit, new Date(window.startMs), new Date(window.endMs));
  if (slot === undefined) {
    if (spent && call.presented) spent.remember(call.presented, call.bucket, window.endMs);
    throw spentAllowance(limits, call.bucket, window, setHeader, now);
  }
  setHeader("RateLimit-Limit", String(window.limit));
  setHeader("RateLimit-Remaining", String(window.limit - slot));
  setHeader("RateLimit-Reset", String(Math.max(1, Math.ceil((window.endMs - now) / 1000))));
}

/** Each call counts against its token's allowance of the bucket its procedure names in `meta.rateLimit` (429). */
export const rateLimit = accountMiddleware(async ({ ctx, meta, next }) => {
  if (ctx.rateLimits) {
    const token = bearerToken(ctx.authorization);
    const call = {
      tokenId: ctx.holder.tokenId,
      bucket: meta?.rateLimit ?? "api",
      presented: token && hashToken(token),
    };
    const spent = ctx.callSlots?.spentAllowances;
    try {
      await enforceRateLimit(ctx.repositories.rateLimits, ctx.rateLimits, call, { setHeader: ctx.setHeader, spent });
    } catch (error) {
      if (error instanceof DomainError && error.code === "TOO_MANY_REQUESTS") {
        ctx.metrics.callsRefused.inc({ reason: "rate_limit" });
      }
      throw error;
    }
  }
  return next();
});

/**
 * The 429 a call of a token whose allowance this instance saw spent gets at once (before authentication: no
 * database read or write), as the rate limit would answer it; undefined for any other call.
 */
export function refusalOfSpentAllowance(
  ctx: Pick<Context, "rateLimits" | "setHeader">,
  spent: SpentAllowances,
  tokenHash: string,
  bucket: RateLimitBucket,
  now = Date.now(),
): DomainError | undefined {
  if (!ctx.rateLimits || spent.spentUntil(tokenHash, bucket) === undefined) return undefined;
  return spentAllowance(ctx.rateLimits, bucket, windowOf(ctx.rateLimits, bucket, now), ctx.setHeader, now);
}
