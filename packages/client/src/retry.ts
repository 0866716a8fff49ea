import {
  type BillingError,
  ConnectionError,
  RateLimitError,
  RequestAbortedError,
  RequestInProgressError,
  ServerError,
  TimeoutError,
} from "./errors.js";

/**
 * When a method's call may be sent again after a transient failure; each resource names its methods' modes.
 * - `safe`: repeating it changes nothing (reads, upserts, batches deduplicated by `ref`, previews, billing runs).
 * - `keyed`: it is sent with an `Idempotency-Key`, one per call and the same on every attempt, so the service runs
 *   it once and a retry gets the first answer.
 * - `never`: sent once, whatever happens (its answer holds a secret, which the service never stores under a key).
 */
export type RetryMode = "safe" | "keyed" | "never";

/** The error of a call its caller's signal aborted. */
export const abortedBy = (signal: AbortSignal) =>
  new RequestAbortedError("The call was aborted by its signal", "ABORTED", undefined, [], { cause: signal.reason });

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

/** Waits `ms`, or rejects as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const abort = (event: Event) => {
      clearTimeout(timer);
      reject(abortedBy(event.target as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/** Delay before retry number `attempt` (0-based): the server's Retry-After when given, else jittered exponential. */
export function retryDelayMs(attempt: number, error: BillingError, policy: RetryPolicy): number {
  if (error instanceof RateLimitError && error.retryAfterMs !== undefined) {
    return Math.min(error.retryAfterMs, policy.maxDelayMs * 4);
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.random() * ceiling;
}

/**
 * Runs `call`, repeating it after transient failures unless its mode is `never`, up to `policy.maxRetries` times.
 * Once `signal` aborts, nothing more is sent and no wait goes on: the call rejects with a RequestAbortedError.
 */
export async function withRetries<T>(
  call: () => Promise<T>,
  mode: RetryMode,
  policy: RetryPolicy,
  signal: AbortSignal | undefined,
): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    if (signal?.aborted) throw abortedBy(signal);
    try {
      return await call();
    } catch (error) {
      if (mode === "never" || attempt >= policy.maxRetries || !isTransient(error)) throw error;
      await sleep(retryDelayMs(attempt, error, policy), signal);
    }
  }
}
