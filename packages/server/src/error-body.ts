import { type ErrorBody, type ErrorCode, type ErrorIssue, HTTP_STATUS } from "@billing/shared";
import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { ZodError } from "zod";
import { DomainError, zodIssues } from "./domain/errors.js";
import type { Logger } from "./logger.js";

/**
 * The edge of the error model: whatever was thrown while serving a call becomes the one public error body, for
 * REST and tRPC alike. A DomainError shows its own code, message and issues (tRPC hands it over wrapped, as the
 * cause of a TRPCError); the libraries' own errors (invalid input, a malformed body, no such procedure) get
 * the body of their code; anything else is a 500 whose details never leave the server.
 */
export function toErrorBody(error: unknown): ErrorBody {
  const domainError = domainErrorOf(error);
  if (domainError) {
    const { code, message, issues, remaining } = domainError;
    return { code, message, ...(issues && { issues }), ...(remaining !== undefined && { remaining }) };
  }
  if (!(error instanceof TRPCError)) return INTERNAL;
  if (error.code === "BAD_REQUEST" && error.cause instanceof ZodError) {
    const issues = zodIssues(error.cause);
    return { code: "BAD_REQUEST", message: `Invalid input: ${describe(issues)}`, issues };
  }
  if (error.code === "PARSE_ERROR") return { code: "BAD_REQUEST", message: "Request body is not valid JSON" };
  if (error.code === "INTERNAL_SERVER_ERROR" || !isErrorCode(error.code)) return INTERNAL;
  return { code: error.code, message: error.message === error.code ? DEFAULT_MESSAGES[error.code] : error.message };
}

/** The HTTP status of an error body: the one table of codes and statuses is `HTTP_STATUS` (@billing/shared). */
export const statusOf = (body: ErrorBody) => HTTP_STATUS[body.code];

/** The tRPC code a call's error answers with: a DomainError's own, else the library's. */
export const trpcCodeOf = (error: TRPCError): TRPC_ERROR_CODE_KEY =>
  asTrpcCode(domainErrorOf(error)?.code ?? error.code);

/** The tRPC code of an error code: LIMIT_REACHED is CONFLICT to tRPC, which has no code of its own for it. */
export const asTrpcCode = (code: ErrorCode | TRPC_ERROR_CODE_KEY): TRPC_ERROR_CODE_KEY =>
  code === "LIMIT_REACHED" ? "CONFLICT" : code;

/** Errors that are ours to fix (not the caller's) get logged with their cause. */
export function logIfInternal(logger: Logger, error: TRPCError, procedure: string | undefined) {
  if (toErrorBody(error).code !== "INTERNAL_SERVER_ERROR") return;
  logger.error({ err: error.cause ?? error, procedure }, "internal error");
}

const domainErrorOf = (error: unknown): DomainError | undefined => {
  if (error instanceof DomainError) return error;
  return error instanceof TRPCError && error.cause instanceof DomainError ? error.cause : undefined;
};

const INTERNAL: ErrorBody = { code: "INTERNAL_SERVER_ERROR", message: "Internal server error" };

const isErrorCode = (code: string): code is ErrorCode => code in HTTP_STATUS;

const describe = (issues: ErrorIssue[]) =>
  issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ");

/** For errors raised by the libraries with no message of their own. */
const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  BAD_REQUEST: "Bad request",
  UNAUTHORIZED: "Unauthorized",
  FORBIDDEN: "Forbidden",
  NOT_FOUND: "Not found",
  METHOD_NOT_SUPPORTED: "Method not supported",
  CONFLICT: "Conflict",
  LIMIT_REACHED: "Limit reached",
  PAYLOAD_TOO_LARGE: "Request body exceeds the size limit",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported media type: send JSON",
  TOO_MANY_REQUESTS: "Too many requests",
  INTERNAL_SERVER_ERROR: "Internal server error",
  SERVICE_UNAVAILABLE: "Service unavailable",
};
