/**
 * Options of one call, the last argument of every method: each overrides the client's own for that call only.
 * Which of them a method takes follows its retry mode (see `RetryMode`): an option it could not honour is a type
 * error in an object literal (and ignored at run time).
 */
export interface RequestOptions {
  /** Aborts the call, and its retries and the waits between them: it then rejects with a RequestAbortedError. */
  signal?: AbortSignal;
  /** Per attempt, as the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Retries of a transient failure, as the client's `maxRetries`; 0 sends the call once. */
  maxRetries?: number;
}

/** Options of a call sent with an `Idempotency-Key` (creations, `customers.update`, `contracts.delete`, grants). */
export interface KeyedRequestOptions extends RequestOptions {
  /**
   * The call's `Idempotency-Key` (1 to 255 visible ASCII characters), instead of one generated for the call: a call
   * sent again with the same key and input, even from another process, gets the first answer and takes effect once.
   */
  idempotencyKey?: string;
}

/** Options of a call that is never retried (the admin changes): `maxRetries` has nothing to change. */
export type UnretriedRequestOptions = Omit<RequestOptions, "maxRetries">;
