import type { RateLimitBucket, RateLimits, SetHeader } from "../context.js";
import { DomainError } from "../domain/errors.js";
import type { RateLimitRepository } from "../repositories/rate-limits.js";
import { accountMiddleware } from "./authenticate.js";

/**
 * Admits a call of `tokenId` into the current fixed window (exactly `limit` calls are admitted, on both engines)
 * and tells the caller where it stands through the `RateLimit-*` headers; past the limit, answers 429 with
 * `Retry-After` (seconds to the next window).
 */
async function enforceRateLimit(
  counters: RateLimitRepository,
  limits: RateLimits,
  call: { tokenId: string; bucket: RateLimitBucket },
  setHeader: SetHeader,
  now = Date.now(),
): Promise<void> {
  const ingest = call.bucket === "ingest";
  const limit = ingest ? limits.ingestPerWindow : limits.perWindow;
  const windowMs = limits.windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
  const counter = `${call.tokenId}/${call.bucket}`;
  const slot = await counters.admit(counter, limit, new Date(windowStart), new Date(windowStart + windowMs));

  setHeader("RateLimit-Limit", String(limit));
  setHeader("RateLimit-Remaining", String(slot === undefined ? 0 : limit - slot));
  setHeader("RateLimit-Reset", String(resetSeconds));
  if (slot !== undefined) return;
  setHeader("Retry-After", String(resetSeconds));
  const what = ingest ? "ingestion requests" : "requests";
  const window = `${limits.windowSeconds} s`;
  const message = `Rate limit exceeded: ${limit} ${what} per ${window} for this token; retry in ${resetSeconds} s`;
  throw new DomainError("TOO_MANY_REQUESTS", message);
}

/** Each call counts against its token's allowance of the bucket its procedure names in `meta.rateLimit` (429). */
export const rateLimit = accountMiddleware(async ({ ctx, meta, next }) => {
  if (ctx.rateLimits) {
    const call = { tokenId: ctx.holder.tokenId, bucket: meta?.rateLimit ?? "api" };
    await enforceRateLimit(ctx.repositories.rateLimits, ctx.rateLimits, call, ctx.setHeader);
  }
  return next();
});
