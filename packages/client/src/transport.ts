import type { AppRouter } from "@billing/server";
import type { ErrorCode } from "@billing/shared";
import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError } from "@trpc/client";
import {
  BillingError,
  ConflictError,
  ConnectionError,
  OutcomeUnknownError,
  RateLimitError,
  RequestInProgressError,
  TimeoutError,
  errorFromServer,
  errorFromStatus,
} from "./errors.js";
import { DEFAULT_RETRY_POLICY, withRetries, type RetryPolicy } from "./retry.js";

export interface TransportOptions {
  /** Where the service runs, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** `Authorization: Bearer <token>` on every call. */
  token: string;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  /** Retries of a transient failure (network, timeout, 429, 5xx) for operations safe to repeat; default 2. */
  maxRetries?: number;
  /** A fetch of your own (proxies, instrumentation, tests); default the global fetch. */
  fetch?: typeof globalThis.fetch;
}

export type Trpc = ReturnType<typeof createTRPCClient<AppRouter>>;

/** What a keyed mutation passes to tRPC: the attempt's signal, and the key every attempt shares. */
export interface KeyedCallOptions {
  signal: AbortSignal;
  context: { idempotencyKey: string };
}

export interface Transport {
  trpc: Trpc;
  /** Runs one operation with a timeout, typed errors and, when `repeatable`, retries. */
  call<T>(operation: (signal: AbortSignal) => Promise<T>, repeatable: boolean): Promise<T>;
  /**
   * Runs a mutation that is not safe to repeat by itself: every attempt carries one generated `Idempotency-Key`,
   * so the service runs it at most once and a retry gets the first answer. Retried like a repeatable operation.
   */
  callOnce<T>(operation: (options: KeyedCallOptions) => Promise<T>): Promise<T>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function retryAfterMs(response: Response | undefined): number | undefined {
  const header = response?.headers.get("retry-after");
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** An HTTP error answer whose body is not the service's JSON (e.g. a proxy's 502 page). */
class HttpStatusError extends Error {
  constructor(readonly response: Response) {
    super(`The service answered ${response.status} ${response.statusText}`.trim());
  }
}

/** tRPC cannot parse a non-JSON error page and would lose its status; keep it instead. */
const keepingStatus =
  (fetch: typeof globalThis.fetch): typeof globalThis.fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    const isJson = response.headers.get("content-type")?.includes("application/json") ?? false;
    if (!response.ok && !isJson) throw new HttpStatusError(response);
    return response;
  };

/** Any failure of a call, as one of the SDK's typed errors. */
export function toBillingError(error: unknown, signal: AbortSignal): BillingError {
  if (error instanceof BillingError) return error;
  if (signal.aborted) return new TimeoutError("The service did not answer in time", "TIMEOUT", undefined, [], { cause: error });
  if (!(error instanceof TRPCClientError)) return new ConnectionError(String(error), "CONNECTION_ERROR", undefined, [], { cause: error });
  const response = error.cause instanceof HttpStatusError ? error.cause.response : (error.meta as { response?: Response } | undefined)?.response;
  const data = error.data as { code?: string; httpStatus?: number; issues?: { path: string; message: string }[] } | undefined;
  const typed =
    data?.code && data.httpStatus
      ? errorFromServer(data.code as ErrorCode, data.httpStatus, error.message, data.issues ?? [], error)
      : response && !response.ok
        ? errorFromStatus(response.status, `The service answered ${response.status} ${response.statusText}`.trim(), error)
        : new ConnectionError(error.message, "CONNECTION_ERROR", undefined, [], { cause: error });
  if (typed instanceof RateLimitError) typed.retryAfterMs = retryAfterMs(response);
  if (typed instanceof ConflictError) return keyedConflict(typed, response) ?? typed;
  return typed;
}

/** A 409 about the call's Idempotency-Key, told apart by the service's `Idempotency-Status` header. */
function keyedConflict(conflict: ConflictError, response: Response | undefined): BillingError | undefined {
  const status = response?.headers.get("idempotency-status");
  const ErrorClass =
    status === "in-progress" ? RequestInProgressError : status === "outcome-unknown" ? OutcomeUnknownError : undefined;
  const { message, code, status: httpStatus, issues, cause } = conflict;
  return ErrorClass && new ErrorClass(message, code, httpStatus, issues, { cause });
}

/** Settles with the operation, or rejects when the deadline passes even if a custom fetch ignores the signal. */
function beforeDeadline<T>(operation: Promise<T>, signal: AbortSignal): Promise<T> {
  const deadline = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
  return Promise.race([operation, deadline]);
}

/** tRPC with batching (calls made in the same tick share one HTTP request), except keyed mutations. */
export function createTransport(options: TransportOptions): Transport {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/trpc`;
  const authorization = `Bearer ${options.token}`;
  const fetch = keepingStatus(options.fetch ?? globalThis.fetch);
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => typeof op.context.idempotencyKey === "string",
        // A key names one call, so a keyed mutation travels in an HTTP request of its own.
        true: httpLink({ url, fetch, headers: ({ op }) => ({ authorization, "idempotency-key": String(op.context.idempotencyKey) }) }),
        // Queries go as POST too: their inputs travel in the body, so no input is too long for a URL.
        false: httpBatchLink({ url, fetch, headers: () => ({ authorization }), methodOverride: "POST" }),
      }),
    ],
  });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries };
  const call: Transport["call"] = (operation, repeatable) =>
    withRetries(
      async () => {
        const signal = AbortSignal.timeout(timeoutMs);
        try {
          return await beforeDeadline(operation(signal), signal);
        } catch (error) {
          throw toBillingError(error, signal);
        }
      },
      repeatable,
      policy,
    );
  return {
    trpc,
    call,
    callOnce(operation) {
      const context = { idempotencyKey: globalThis.crypto.randomUUID() };
      return call((signal) => operation({ signal, context }), true);
    },
  };
}
