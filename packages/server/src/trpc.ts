import type { ErrorBody } from "@billing/shared";
import { initTRPC } from "@trpc/server";
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import type { Context, Meta } from "./context.js";
import { statusOf, toErrorBody, trpcCodeOf } from "./error-body.js";

/** A call's error as tRPC answers it: the one error body, its status, and the JSON-RPC code of its tRPC code. */
export const trpcErrorShape = (body: ErrorBody, code: TRPC_ERROR_CODE_KEY) => ({
  message: body.message,
  code: TRPC_ERROR_CODES_BY_KEY[code],
  data: {
    code: body.code,
    httpStatus: statusOf(body),
    ...(body.issues && { issues: body.issues }),
    ...(body.remaining !== undefined && { remaining: body.remaining }),
  },
});

/**
 * The tRPC instance of the service, for middleware/ and procedures.ts. Its error formatter is the tRPC edge of the
 * error model: every error a call ends with is answered with the one error body (error-body.ts) and its status.
 */
export const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter: ({ error }) => trpcErrorShape(toErrorBody(error), trpcCodeOf(error)),
  });

export const router = t.router;
