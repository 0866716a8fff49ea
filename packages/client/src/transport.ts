import type { AppRouter } from "@billing/server";
import { DEFAULT_MAX_BATCH_CALLS, type ErrorCode, type ErrorIssue } from "@billing/shared";
import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError } from "@trpc/client";
import {
  BillingError,
  ConflictError,
  ConnectionError,
  errorFromServer,
  errorFromStatus,
  OutcomeUnknownError,
  RateLimitError,
  RequestInProgressError,
  TimeoutError,
} from "./errors.js";
import type { KeyedRequestOptions } from "./request-options.js";
import { abortedBy, DEFAULT_RETRY_POLICY, type RetryMode, type RetryPolicy, withRetries } from "./retry.js";
import type { WithCurrencyCodes } from "./types.js";

export interface TransportOptions {
  /** Where the service runs, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** `Authorization: Bearer <token>` on every call. */
  token: string;
  /** Per attempt; default 30 s. A call's own `timeoutMs` overrides it. */
  timeoutMs?: number;
  /**
   * Retries of a transient failure (network, timeout, 429, 5xx, a keyed call still in progress) of calls whose retry
   * mode allows them (`safe`, `keyed`); default 2. A call's own `maxRetries` overrides it.
   */
  maxRetries?: number;
  /** A fetch of your own (proxies, instrumentation, tests); default the global fetch. */
  fetch?: typeof globalThis.fetch;
}

export type Trpc = ReturnType<typeof createTRPCClient<AppRouter>>;

/** What an attempt passes to tRPC: its signal, and for a keyed call the key every attempt shares. */
export interface AttemptOptions {
  signal: AbortSignal;
  context: { idempotencyKey?: string };
}

export interface Transport {
  trpc: Trpc;
  /**
   * Runs one operation with a timeout per attempt, typed errors, and retries as its `mode` allows. A `keyed` call
   * carries one `Idempotency-Key` (the caller's, else one generated for the call) on every attempt. Its answer's
   * currency fields are `CurrencyCode`s: the server's output schemas check them against the same list.
   */
  call<T>(
    mode: RetryMode,
    operation: (attempt: AttemptOptions) => Promise<T>,
    options?: KeyedRequestOptions,
  ): Promise<WithCurrencyCodes<T>>;
  /**
   * A GET of a REST path outside tRPC (documents: PDF, HTML), for one attempt of `call`: the answer when it is a
   * success, else the typed error its JSON body names.
   */
  getRaw(path: string, attempt: AttemptOptions, headers?: Record<string, string>): Promise<Response>;
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

const statusMessage = (response: Response) => `The service answered ${response.status} ${response.statusText}`.trim();

/** An HTTP error answer whose body is not the service's JSON (e.g. a proxy's 502 page). */
class HttpStatusError extends Error {
  constructor(readonly response: Response) {
    super(statusMessage(response));
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

/** The signals an attempt runs under: its own deadline, and the caller's signal when one was given. */
interface AttemptSignals {
  deadline: AbortSignal;
  caller: AbortSignal | undefined;
}

/** Any failure of a call, as one of the SDK's typed errors, with the answer's `X-Request-Id` when an answer came. */
export function toBillingError(error: unknown, { deadline, caller }: AttemptSignals): BillingError {
  if (error instanceof BillingError) return error;
  if (caller?.aborted) return abortedBy(caller);
  if (deadline.aborted) {
    return new TimeoutError("The service did not answer in time", "TIMEOUT", undefined, [], { cause: error });
  }
  if (!(error instanceof TRPCClientError)) {
    return new ConnectionError(String(error), "CONNECTION_ERROR", undefined, [], { cause: error });
  }
  const response =
    error.cause instanceof HttpStatusError
      ? error.cause.response
      : (error.meta as { response?: Response } | undefined)?.response;
  const options = { cause: error, requestId: response?.headers.get("x-request-id") ?? undefined };
  const data = error.data as
    | { code?: string; httpStatus?: number; issues?: ErrorIssue[]; remaining?: number }
    | undefined;
  const typed =
    data?.code && data.httpStatus
      ? errorFromServer(data.code as ErrorCode, data.httpStatus, error.message, data.issues ?? [], {
          ...options,
          remaining: data.remaining,
        })
      : response && !response.ok
        ? errorFromStatus(response.status, statusMessage(response), options)
        : new ConnectionError(error.message, "CONNECTION_ERROR", undefined, [], options);
  if (typed instanceof RateLimitError) typed.retryAfterMs = retryAfterMs(response);
  if (typed instanceof ConflictError) return keyedConflict(typed, response) ?? typed;
  return typed;
}

/** The typed error of a REST error answer: the service's JSON error body, else its status alone (a proxy's page). */
async function errorOfAnswer(response: Response): Promise<BillingError> {
  const options = { requestId: response.headers.get("x-request-id") ?? undefined };
  const body = (await response.json().catch(() => undefined)) as
    | { code?: ErrorCode; message?: string; issues?: ErrorIssue[]; remaining?: number }
    | undefined;
  const typed =
    body?.code && body.message !== undefined
      ? errorFromServer(body.code, response.status, body.message, body.issues ?? [], {
          ...options,
          remaining: body.remaining,
        })
      : errorFromStatus(response.status, statusMessage(response), options);
  if (typed instanceof RateLimitError) typed.retryAfterMs = retryAfterMs(response);
  return typed;
}

/** A 409 about the call's Idempotency-Key, told apart by the service's `Idempotency-Status` header. */
function keyedConflict(conflict: ConflictError, response: Response | undefined): BillingError | undefined {
  const status = response?.headers.get("idempotency-status");
  const ErrorClass =
    status === "in-progress" ? RequestInProgressError : status === "outcome-unknown" ? OutcomeUnknownError : undefined;
  const { message, code, status: httpStatus, issues, cause, requestId } = conflict;
  return ErrorClass && new ErrorClass(message, code, httpStatus, issues, { cause, requestId });
}

/**
 * Settles with the operation, or rejects once `signal` aborts (deadline or caller) even if a custom fetch ignores it,
 * or a batched call's HTTP request goes on for the others.
 */
function beforeAbort<T>(operation: Promise<T>, signal: AbortSignal): Promise<T> {
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  return Promise.race([operation, aborted]);
}

/** tRPC with batching (calls made in the same tick share one HTTP request), except keyed mutations. */
export function createTransport(options: TransportOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const url = `${baseUrl}/trpc`;
  const authorization = `Bearer ${options.token}`;
  const rawFetch = options.fetch ?? globalThis.fetch;
  const fetch = keepingStatus(rawFetch);
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => typeof op.context.idempotencyKey === "string",
        // A key names one call, so a keyed mutation travels in an HTTP request of its own.
        true: httpLink({
          url,
          fetch,
          headers: ({ op }) => ({ authorization, "idempotency-key": String(op.context.idempotencyKey) }),
        }),
        // Queries go as POST too: their inputs travel in the body, so no input is too long for a URL.
        // Split at the server's batch limit: a larger batch would be refused whole.
        false: httpBatchLink({
          url,
          fetch,
          headers: () => ({ authorization }),
          methodOverride: "POST",
          maxItems: DEFAULT_MAX_BATCH_CALLS,
        }),
      }),
    ],
  });
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const defaultMaxRetries = options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries;
  return {
    trpc,
    call<T>(
      mode: RetryMode,
      operation: (attempt: AttemptOptions) => Promise<T>,
      { signal: caller, timeoutMs, maxRetries, idempotencyKey }: KeyedRequestOptions = {},
    ) {
      const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: maxRetries ?? defaultMaxRetries };
      // One key per logical call, generated once here: every retry must carry the same key, never a new one.
      const context = mode === "keyed" ? { idempotencyKey: idempotencyKey ?? globalThis.crypto.randomUUID() } : {};
      const attempt = async () => {
        const deadline = AbortSignal.timeout(timeoutMs ?? defaultTimeoutMs);
        const signal = caller ? AbortSignal.any([caller, deadline]) : deadline;
        try {
          return await beforeAbort(operation({ signal, context }), signal);
        } catch (error) {
          throw toBillingError(error, { deadline, caller });
        }
      };
      // Only a type changes: every currency the service answers has passed its output schema's list of codes.
      return withRetries(attempt, mode, policy, caller) as Promise<WithCurrencyCodes<T>>;
    },
    async getRaw(path, { signal }, headers = {}) {
      const response = await rawFetch(`${baseUrl}${path}`, { headers: { ...headers, authorization }, signal });
      if (!response.ok) throw await errorOfAnswer(response);
      return response;
    },
  };
}
