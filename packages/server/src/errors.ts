import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import type { ErrorBody, ErrorCode, ErrorIssue } from "@billing/shared";

/** The one table of error codes: every error the API returns has one of these codes and its status. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

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
  return { code: error.code, message: error.message };
}

export const statusOf = (body: ErrorBody) => HTTP_STATUS[body.code];

/** Errors that are ours to fix (not the caller's) get logged with their cause. */
export function logIfInternal(error: TRPCError, path: string | undefined) {
  if (toErrorBody(error).code !== "INTERNAL_SERVER_ERROR") return;
  console.error(`[billing] internal error in ${path ?? "request"}:`, error.cause ?? error);
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
