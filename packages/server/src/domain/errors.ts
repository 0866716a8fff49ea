import type { ErrorCode, ErrorIssue } from "@billing/shared";
import type { ZodError } from "zod";

/**
 * An error meant for the caller, and the only one: its code (one of the API's error codes), its message and its
 * issues are shown as they are. The domain, repositories, services, `db/` and the middleware throw it, knowing
 * nothing of HTTP or tRPC; the edge (error-body.ts) turns it into the error body and its status. Anything else
 * thrown (a driver error, a broken invariant) is a fault of ours: a 500 whose message is never shown.
 */
export class DomainError extends Error {
  override readonly name = "DomainError";

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues?: ErrorIssue[],
    /** LIMIT_REACHED: what may still be reserved, in the API's decimals. */
    readonly remaining?: number,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new DomainError("NOT_FOUND", `${what} not found`);
export const badRequest = (message: string, issues?: ErrorIssue[]) => new DomainError("BAD_REQUEST", message, issues);
export const conflict = (message: string, issues?: ErrorIssue[]) => new DomainError("CONFLICT", message, issues);
export const unauthorized = (message: string) => new DomainError("UNAUTHORIZED", message);
/** 409 LIMIT_REACHED: a reservation does not fit; `remaining` is what still would (the API's decimals). */
export const limitReached = (message: string, remaining: number, issues?: ErrorIssue[]) =>
  new DomainError("LIMIT_REACHED", message, issues, remaining);
export const forbidden = (message: string) => new DomainError("FORBIDDEN", message);

const dotted = (path: PropertyKey[]) => path.map(String).join(".");

/**
 * A zod validation's issues, each with its dotted path; each unknown field is an issue of its own, at its path, and
 * a record's invalid key says what is wrong with it (zod's own message only says "Invalid key in record").
 */
export const zodIssues = (error: ZodError): ErrorIssue[] =>
  error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: dotted([...issue.path, key]), message: "unknown field" }));
    }
    if (issue.code === "invalid_key") {
      return issue.issues.map((inner) => ({ path: dotted(issue.path), message: `key ${inner.message}` }));
    }
    return [{ path: dotted(issue.path), message: issue.message }];
  });
