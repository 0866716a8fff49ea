import { type ErrorBody, type ErrorCode, errorBody, HTTP_STATUS } from "@billing/shared";
import type { OpenAPIObject } from "trpc-to-openapi";
import { createSchema } from "zod-openapi";

const BODY_METHODS = new Set(["post", "put", "patch"]);

interface ErrorResponse {
  code: ErrorCode;
  description: string;
  appliesTo: (method: string, path: string) => boolean;
  /** What the body says in a typical case, with messages as the server writes them (BAD_REQUEST's is per operation). */
  message: string;
}

/**
 * The operations that call the payment provider while the request waits (services/collection/): an unreachable or
 * failing provider answers 503. The charge at finalization and the collection run catch it and try again later.
 */
export const PROVIDER_CALLING_OPERATIONS = new Set([
  "post /customers/{customerId}/payment-provider/sync",
  "post /invoices/{invoiceId}/collect",
]);

/** The errors a REST call can get, with when they apply (README, "Errors"). */
const ERROR_RESPONSES: ErrorResponse[] = [
  {
    code: "BAD_REQUEST",
    description: "Invalid input (fields named in `issues`), malformed JSON or cursor, out-of-range `limit`",
    appliesTo: () => true,
    message: "Invalid input",
  },
  {
    code: "UNAUTHORIZED",
    description: "Missing, malformed, unknown or revoked token",
    appliesTo: () => true,
    message: "Unknown or revoked token",
  },
  {
    code: "FORBIDDEN",
    description: "The token may not do this (admin API disabled, or a read-only token making a change)",
    appliesTo: () => true,
    message: "This token has the read scope: it may only read (GET), not make changes",
  },
  {
    code: "NOT_FOUND",
    description:
      "No such resource in the caller's account, or nothing where the request points (a list's `cursor`, a " +
      "preview's `at`)",
    appliesTo: () => true,
    message: "Customer not found",
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
    message: "This Idempotency-Key was already used for a different request (method, path or body)",
  },
  {
    // The 409 of a reservation: its own code (the other 409s of the operation, a ref taken, are CONFLICT).
    code: "LIMIT_REACHED",
    description:
      "The reservation does not fit within the limit: `remaining` says what still would; a ref already used or an " +
      "`Idempotency-Key` reused is `CONFLICT`",
    appliesTo: (method, path) => method === "post" && path === "/customers/{customerId}/reservations",
    message: "LIMIT_REACHED: 40 remaining",
  },
  {
    code: "PAYLOAD_TOO_LARGE",
    description: "Body above the size limit",
    appliesTo: (method) => BODY_METHODS.has(method),
    message: "Request body exceeds the limit of 5242880 bytes",
  },
  {
    code: "UNSUPPORTED_MEDIA_TYPE",
    description: "A body that is not `application/json`",
    appliesTo: (method) => BODY_METHODS.has(method),
    message: "Unsupported media type: send JSON",
  },
  {
    code: "TOO_MANY_REQUESTS",
    description: "Rate limit of the token exceeded; retry after `Retry-After` seconds",
    appliesTo: () => true,
    message: "Rate limit exceeded: 600 requests per 60 s for this token; retry in 12 s",
  },
  {
    code: "INTERNAL_SERVER_ERROR",
    description: "A fault of the service; details go to its log only",
    appliesTo: () => true,
    message: "Internal server error",
  },
  {
    code: "SERVICE_UNAVAILABLE",
    description:
      "The payment provider could not be reached, or answered with a fault: nothing is known of the call's " +
      "outcome; retry later (a charge is made again with the same idempotency key, so never twice)",
    appliesTo: (method, path) => PROVIDER_CALLING_OPERATIONS.has(`${method} ${path}`),
    message: "The payment provider could not be reached, or failed; try again later (POST /v1/payment_intents: 503)",
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
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(pathItem as Record<string, DocumentedOperation>)) {
      if (!operation.responses) continue;
      for (const status of Object.keys(operation.responses))
        if (Number(status) >= 400) delete operation.responses[status];
      const applying = ERROR_RESPONSES.filter(({ appliesTo }) => appliesTo(method, path));
      for (const { code, description, message } of applying) {
        // An operation that takes no input (GET /token) has nothing to be invalid.
        if (code === "BAD_REQUEST" && takesNoInput(operation)) continue;
        const example: ErrorBody = code === "BAD_REQUEST" ? invalidInputExample(operation, schemas) : { code, message };
        operation.responses[String(HTTP_STATUS[code])] = {
          description,
          content: { "application/json": { schema, example } },
        };
      }
    }
  }
}

const takesNoInput = (operation: DocumentedOperation) =>
  (operation.parameters ?? []).length === 0 && operation.requestBody === undefined;

interface FieldSchema {
  $ref?: string;
  type?: string;
  required?: string[];
  properties?: Record<string, FieldSchema>;
}
interface DocumentedOperation {
  responses?: Record<string, unknown>;
  parameters?: { name: string; in: string; required?: boolean; schema?: FieldSchema }[];
  requestBody?: { content?: Record<string, { schema?: FieldSchema }> };
}

/**
 * The first of these fields whose schema states its JSON type, and the type as zod names it in its messages
 * ("expected number"); fields of a referenced schema (enums) get other messages and are passed over.
 */
function typedField(fields: [name: string, schema: FieldSchema | undefined][]) {
  for (const [name, schema] of fields) {
    if (schema?.type) return { name, type: schema.type === "integer" ? "number" : schema.type };
  }
  return undefined;
}

/**
 * A 400 of this operation as the server words it: a required field left out (the body's, else the query's; a query's
 * currency code with its own message), else a
 * body field sent as null, else a `limit` above 1000, else a path parameter longer than its 200 characters. Each
 * issue names its field.
 */
function invalidInputExample(operation: DocumentedOperation, schemas: Record<string, unknown>): ErrorBody {
  const issue = (path: string, message: string): ErrorBody => ({
    code: "BAD_REQUEST",
    message: `Invalid input: ${path}: ${message}`,
    issues: [{ path, message }],
  });
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  const body = bodySchema?.$ref ? (schemas[bodySchema.$ref.split("/").pop() ?? ""] as FieldSchema) : bodySchema;
  const parameters = operation.parameters ?? [];
  const requiredQuery = parameters.filter((parameter) => parameter.in === "query" && parameter.required);
  const missing =
    typedField((body?.required ?? []).map((name) => [name, body?.properties?.[name]])) ??
    typedField(requiredQuery.map(({ name, schema }) => [name, schema]));
  if (missing) return issue(missing.name, `Invalid input: expected ${missing.type}, received undefined`);
  // A required currency code in the query (a report's): its own message, missing or unknown alike.
  const currency = requiredQuery.find(({ schema }) => schema?.$ref?.endsWith("/CurrencyCode"));
  if (currency) return issue(currency.name, "not an ISO 4217 currency code");
  const nulled = typedField(Object.entries(body?.properties ?? {}));
  if (nulled) return issue(nulled.name, `Invalid input: expected ${nulled.type}, received null`);
  if (parameters.some(({ name }) => name === "limit")) return issue("limit", "Too big: expected number to be <=1000");
  const pathParameter = parameters.find((parameter) => parameter.in === "path");
  if (pathParameter) return issue(pathParameter.name, "Too big: expected string to have <=200 characters");
  return { code: "BAD_REQUEST", message: "Request body is not valid JSON" };
}
