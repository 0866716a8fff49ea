import { type ErrorCode, type ErrorIssue, HTTP_STATUS } from "@billing/shared";

/** What an error carries besides its message, code, status and issues. */
export interface BillingErrorOptions {
  cause?: unknown;
  /** The answer's `X-Request-Id`. */
  requestId?: string | undefined;
  /** LIMIT_REACHED: the body's `remaining`. */
  remaining?: number | undefined;
}

/** Base of every error the SDK throws: `code` and `message` are the server's, when the server answered. */
export class BillingError extends Error {
  override readonly name: string = "BillingError";
  /**
   * The `X-Request-Id` of the server's answer: the id its log line carries, to quote when asking about a call.
   * Undefined when no answer came (network failure, timeout, abort).
   */
  readonly requestId: string | undefined;
  constructor(
    message: string,
    readonly code: ErrorCode | "CONNECTION_ERROR" | "TIMEOUT" | "ABORTED",
    /** HTTP status of the server's answer; undefined when none came. */
    readonly status: number | undefined,
    readonly issues: ErrorIssue[] = [],
    { cause, requestId }: BillingErrorOptions = {},
  ) {
    super(message, { cause });
    this.requestId = requestId;
  }
}

/** 400: the input was refused; `issues` names each invalid field. */
export class ValidationError extends BillingError {
  override readonly name = "ValidationError";
}
/** 401: missing, unknown or revoked token. */
export class AuthenticationError extends BillingError {
  override readonly name = "AuthenticationError";
}
/** 403: the token may not do this. */
export class PermissionError extends BillingError {
  override readonly name = "PermissionError";
}
/** 404: no such resource in the caller's account. */
export class NotFoundError extends BillingError {
  override readonly name = "NotFoundError";
}
/** 409: a unique value is taken, or the request conflicts with the stored state. */
export class ConflictError extends BillingError {
  override readonly name: string = "ConflictError";
}
/** 409 `LIMIT_REACHED`: a reservation does not fit; `remaining` is what still would. */
export class LimitReachedError extends ConflictError {
  override readonly name = "LimitReachedError";
  readonly remaining: number | undefined;
  constructor(...args: ConstructorParameters<typeof BillingError>) {
    super(...args);
    this.remaining = args[4]?.remaining;
  }
}
/**
 * 409 on a call sent with an Idempotency-Key while its first attempt still runs on the service
 * (`Idempotency-Status: in-progress`). The SDK waits and retries it with the same key; this is thrown only once
 * the retries are spent. The call may still complete: check before calling again.
 */
export class RequestInProgressError extends ConflictError {
  override readonly name = "RequestInProgressError";
}
/**
 * 409 on a call sent with an Idempotency-Key whose first attempt may or may not have taken effect
 * (`Idempotency-Status: outcome-unknown`): it failed on the service's side, or its answer could not be stored.
 * The service never runs it again under that key: check whether it took effect (e.g. list the credit ledger)
 * and call again only if it did not.
 */
export class OutcomeUnknownError extends ConflictError {
  override readonly name = "OutcomeUnknownError";
}
/** 413: the request body is above the server's limit. */
export class PayloadTooLargeError extends BillingError {
  override readonly name = "PayloadTooLargeError";
}
/** 429: too many requests; `retryAfterMs` is the server's Retry-After, when it sent one. */
export class RateLimitError extends BillingError {
  override readonly name = "RateLimitError";
  retryAfterMs: number | undefined;
}
/** 5xx: a fault on the server's side. */
export class ServerError extends BillingError {
  override readonly name = "ServerError";
}
/** The server could not be reached, or the connection broke before an answer. */
export class ConnectionError extends BillingError {
  override readonly name = "ConnectionError";
}
/** No answer within `timeoutMs`. */
export class TimeoutError extends BillingError {
  override readonly name = "TimeoutError";
}
/**
 * The caller's `signal` aborted the call, before it was sent, while it ran or while it waited to be retried. An abort
 * stops waiting, it does not undo: a call already sent may still take effect (see the README's "Retries").
 */
export class RequestAbortedError extends BillingError {
  override readonly name = "RequestAbortedError";
}

const CLASS_BY_CODE: Partial<Record<ErrorCode, typeof BillingError>> = {
  BAD_REQUEST: ValidationError,
  UNSUPPORTED_MEDIA_TYPE: ValidationError,
  UNAUTHORIZED: AuthenticationError,
  FORBIDDEN: PermissionError,
  NOT_FOUND: NotFoundError,
  CONFLICT: ConflictError,
  LIMIT_REACHED: LimitReachedError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  TOO_MANY_REQUESTS: RateLimitError,
};

/** The error class for a server answer: by code, else by status (any 5xx is a ServerError). */
export function errorFromServer(
  code: ErrorCode,
  status: number,
  message: string,
  issues: ErrorIssue[] = [],
  options: BillingErrorOptions = {},
): BillingError {
  const ErrorClass = CLASS_BY_CODE[code] ?? (status >= 500 ? ServerError : BillingError);
  return new ErrorClass(message, code, status, issues, options);
}

const CODE_BY_STATUS = new Map(Object.entries(HTTP_STATUS).map(([code, status]) => [status, code as ErrorCode]));

/** An error answer without the service's body (e.g. a proxy's page): typed by its status alone. */
export function errorFromStatus(status: number, message: string, options: BillingErrorOptions = {}): BillingError {
  const code = CODE_BY_STATUS.get(status);
  if (code) return errorFromServer(code, status, message, [], options);
  return status >= 500
    ? new ServerError(message, "INTERNAL_SERVER_ERROR", status, [], options)
    : new BillingError(message, "BAD_REQUEST", status, [], options);
}
