import { DomainError } from "../domain/errors.js";
import type { RateLimitRepository } from "../repositories/rate-limits.js";

/** Requests a token may make per window: ingestion has its own, larger allowance. */
export interface RateLimits {
  perWindow: number;
  ingestPerWindow: number;
  /** 60 in production (the limits are per minute); tests use shorter windows. */
  windowSeconds: number;
}

/** Procedures counted against the ingestion limit: `POST /events` and `POST /measurements`. */
const INGEST_PROCEDURES = new Set(["events.ingest", "measurements.create"]);

export type SetHeader = (name: string, value: string) => void;

/**
 * Admits a call of `tokenId` into the current fixed window (exactly `limit` calls are admitted, on both engines)
 * and tells the caller where it stands through the `RateLimit-*` headers; past the limit, answers 429 with
 * `Retry-After` (seconds to the next window).
 */
export async function enforceRateLimit(
  counters: RateLimitRepository,
  limits: RateLimits,
  call: { tokenId: string; procedurePath: string },
  setHeader: SetHeader,
  now = Date.now(),
): Promise<void> {
  const ingest = INGEST_PROCEDURES.has(call.procedurePath);
  const limit = ingest ? limits.ingestPerWindow : limits.perWindow;
  const windowMs = limits.windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
  const counter = `${call.tokenId}/${ingest ? "ingest" : "api"}`;
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
