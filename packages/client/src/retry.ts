import {
  BillingError,
  ConnectionError,
  RateLimitError,
  RequestInProgressError,
  ServerError,
  TimeoutError,
} from "./errors.js";

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff; doubles with each attempt, with full jitter, capped at `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8_000 };

/**
 * Transient failures: the same request may well succeed a moment later. A keyed call's first attempt still
 * running is one: the same key is sent again, never a new one, which could run the call twice.
 */
export const isTransient = (error: unknown): error is BillingError =>
  error instanceof ConnectionError ||
  error instanceof TimeoutError ||
  error instanceof RateLimitError ||
  error instanceof ServerError ||
  error instanceof RequestInProgressError;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Delay before retry number `attempt` (0-based): the server's Retry-After when given, else jittered exponential. */
export function retryDelayMs(attempt: number, error: BillingError, policy: RetryPolicy): number {
  if (error instanceof RateLimitError && error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, policy.maxDelayMs * 4);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.random() * ceiling;
}

/**
 * Runs `call`, repeating it after transient failures when `repeatable`: only operations that are safe to
 * repeat (reads, measurement upserts, event batches keyed by `ref`) are ever sent twice.
 */
export async function withRetries<T>(call: () => Promise<T>, repeatable: boolean, policy: RetryPolicy): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!repeatable || attempt >= policy.maxRetries || !isTransient(error)) throw error;
      await sleep(retryDelayMs(attempt, error, policy));
    }
  }
}
