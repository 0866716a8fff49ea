import { type ErrorCode, errorBody, HTTP_STATUS } from "@billing/shared";
import type { OpenAPIObject } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";

const BODY_METHODS = new Set(["post", "put", "patch"]);

/** The errors a REST call can get, with when they apply (README, "Errors"). */
const ERROR_RESPONSES: { code: ErrorCode; description: string; appliesTo: (method: string) => boolean }[] = [
  {
    code: "BAD_REQUEST",
    description: "Invalid input (fields named in `issues`), malformed JSON or cursor, out-of-range `limit`",
    appliesTo: () => true,
  },
  { code: "UNAUTHORIZED", description: "Missing, malformed, unknown or revoked token", appliesTo: () => true },
  {
    code: "FORBIDDEN",
    description: "The token may not do this (admin API disabled, or a read-only token making a change)",
    appliesTo: () => true,
  },
  {
    code: "NOT_FOUND",
    description:
      "No such resource in the caller's account, or nothing where the request points (a list's `cursor`, a " +
      "preview's `at`)",
    appliesTo: () => true,
  },
  {
    code: "CONFLICT",
    description:
      "A unique value is taken, or a credit balance or an invoice would pass the 1e9 USD ceiling; or the " +
      "`Idempotency-Key` was " +
      "used for another request, or its first request is still running (`Idempotency-Status: in-progress`: retry " +
      "later), " +
      "or may or may not have taken effect (`Idempotency-Status: outcome-unknown`: check, then send with a new key)",
    appliesTo: (method) => method !== "get",
  },
  {
    code: "PAYLOAD_TOO_LARGE",
    description: "Body above the size limit",
    appliesTo: (method) => BODY_METHODS.has(method),
  },
  {
    code: "UNSUPPORTED_MEDIA_TYPE",
    description: "A body that is not `application/json`",
    appliesTo: (method) => BODY_METHODS.has(method),
  },
  {
    code: "TOO_MANY_REQUESTS",
    description: "Rate limit of the token exceeded; retry after `Retry-After` seconds",
    appliesTo: () => true,
  },
  {
    code: "INTERNAL_SERVER_ERROR",
    description: "A fault of the service; details go to its log only",
    appliesTo: () => true,
  },
];

/**
 * Replaces the error responses trpc-to-openapi documents (its own body shape, `issues` without `path`, and no
 * 404, 409, 413, 415 or 429 where they happen) with the one error body the service sends, `Error`.
 */
export function documentErrorResponses(document: OpenAPIObject) {
  const { schema, components } = createSchema(errorBody);
  document.components ??= {};
  const schemas = Object.fromEntries(
    Object.entries(document.components.schemas ?? {}).filter(([name]) => !name.startsWith("error.")),
  );
  document.components.schemas = { ...schemas, ...components };
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(
      pathItem as Record<string, { responses?: Record<string, unknown> }>,
    )) {
      if (!operation.responses) continue;
      for (const status of Object.keys(operation.responses))
        if (Number(status) >= 400) delete operation.responses[status];
      for (const { code, description } of ERROR_RESPONSES.filter(({ appliesTo }) => appliesTo(method))) {
        operation.responses[String(HTTP_STATUS[code])] = { description, content: { "application/json": { schema } } };
      }
    }
  }
}
