import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { HTTP_STATUS, type ErrorBody, type ErrorCode, type ErrorIssue } from "@billing/shared";
import type { Logger } from "./logger.js";

export { HTTP_STATUS };

/** An error meant for the caller: its message and issues are shown as they are. */
export class ApiError extends TRPCError {
  readonly issues: ErrorIssue[] | undefined;
  constructor(code: ErrorCode, message: string, issues?: ErrorIssue[]) {
    super({ code, message });
    this.issues = issues;
  }
}

export const notFound = (what: string) => new ApiError("NOT_FOUND", `${what} not found`);
export const badRequest = (message: string, issues?: ErrorIssue[]) => new ApiError("BAD_REQUEST", message, issues);
export const conflict = (message: string) => new ApiError("CONFLICT", message);

const isErrorCode = (code: string): code is ErrorCode => code in HTTP_STATUS;

export const zodIssues = (error: ZodError): ErrorIssue[] =>
  error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));

const describe = (issues: ErrorIssue[]) =>
  issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)).join("; ");

/** Maps any error raised while serving a call to the public error body; internal details never leak. */
export function toErrorBody(error: TRPCError): ErrorBody {
  if (error instanceof ApiError) {
    return { code: error.code as ErrorCode, message: error.message, ...(error.issues && { issues: error.issues }) };
  }
  if (error.code === "BAD_REQUEST" && error.cause instanceof ZodError) {
    const issues = zodIssues(error.cause);
    return { code: "BAD_REQUEST", message: `Invalid input: ${describe(issues)}`, issues };
  }
  if (error.code === "PARSE_ERROR") return { code: "BAD_REQUEST", message: "Request body is not valid JSON" };
  if (error.code === "INTERNAL_SERVER_ERROR" || !isErrorCode(error.code)) {
    return { code: "INTERNAL_SERVER_ERROR", message: "Internal server error" };
  }
  return { code: error.code, message: error.message === error.code ? DEFAULT_MESSAGES[error.code] : error.message };
}

/** For errors raised by the libraries with no message of their own. */
const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  BAD_REQUEST: "Bad request",
  UNAUTHORIZED: "Unauthorized",
  FORBIDDEN: "Forbidden",
  NOT_FOUND: "Not found",
  METHOD_NOT_SUPPORTED: "Method not supported",
  CONFLICT: "Conflict",
  PAYLOAD_TOO_LARGE: "Request body exceeds the size limit",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported media type: send JSON",
  TOO_MANY_REQUESTS: "Too many requests",
  INTERNAL_SERVER_ERROR: "Internal server error",
  SERVICE_UNAVAILABLE: "Service unavailable",
};

export const statusOf = (body: ErrorBody) => HTTP_STATUS[body.code];

/** Errors that are ours to fix (not the caller's) get logged with their cause. */
export function logIfInternal(logger: Logger, error: TRPCError, procedure: string | undefined) {
  if (toErrorBody(error).code !== "INTERNAL_SERVER_ERROR") return;
  logger.error({ err: error.cause ?? error, procedure }, "internal error");
}

/**
 * A unique-index violation. MongoDB reports code 11000; FerretDB 1.24 does so on inserts and upserts
 * but reports updates that collide as InternalError (code 1) carrying SQLite's message.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 11000 || (code === 1 && typeof message === "string" && message.includes("UNIQUE constraint failed"));
}
