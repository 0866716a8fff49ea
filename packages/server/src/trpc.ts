import { initTRPC } from "@trpc/server";
// The marker tRPC puts on every middleware result: needed to answer a call from a middleware (a replay).
import { middlewareMarker } from "@trpc/server/unstable-core-do-not-import";
import type { OpenApiMeta } from "trpc-to-openapi";
import { bearerToken, secretsEqual } from "./auth/tokens.js";
import { ApiError, HTTP_STATUS, badRequest, toErrorBody } from "./errors.js";
import { idempotencyKeyOf, requestFingerprint, runIdempotently, type Outcome } from "./http/idempotency.js";
import { enforceRateLimit, type RateLimits, type SetHeader } from "./http/rate-limit.js";
import type { RequestTrace } from "./http/request-log.js";
import type { Repositories } from "./repositories/index.js";

/** What every call sees: the data layer and the caller's request, nothing cached between calls. */
export interface Context {
  repositories: Repositories;
  authorization: string | undefined;
  adminToken: string | undefined;
  /** The request's log record: authentication adds the account to it. */
  trace: RequestTrace;
  /** Per-token limits; undefined only where the service is embedded without them (some tests). */
  rateLimits: RateLimits | undefined;
  /** How long after an arrears cycle's end billing runs wait before invoicing it. */
  billingGraceMs: number;
  /** Whether webhook endpoint URLs may use http and private addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  allowPrivateWebhookUrls: boolean;
  /** The request's `Idempotency-Key` header, unchecked. */
  idempotencyKey: string | undefined;
  /** Calls in the HTTP request: 1 over REST, 1 or more in a tRPC batch. */
  callsInRequest: number;
  /** Sets a header of the HTTP response carrying this call. */
  setHeader: SetHeader;
}

/** `successStatus` sets the REST status of a successful call (201 for creations); tRPC ignores it. */
export type Meta = OpenApiMeta<{ successStatus?: 200 | 201 }>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      const body = toErrorBody(error);
      return {
        message: body.message,
        code: shape.code,
        data: { code: body.code, httpStatus: HTTP_STATUS[body.code], ...(body.issues && { issues: body.issues }) },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** No credentials: health and documents only. */
export const publicProcedure = t.procedure;

/**
 * A billing call, in this order: the bearer token decides the account (401), the call counts against the
 * token's rate limit (429), the token's scope must allow it (403), and a mutation with an `Idempotency-Key`
 * runs at most once. Every query is then scoped to the account.
 */
export const accountProcedure = t.procedure
  .use(async ({ ctx, next }) => {
    const token = bearerToken(ctx.authorization);
    if (!token) throw new ApiError("UNAUTHORIZED", "Missing or malformed Authorization header: expected `Bearer <token>`");
    const holder = await ctx.repositories.tokens.authenticate(token);
    if (!holder) throw new ApiError("UNAUTHORIZED", "Unknown or revoked token");
    ctx.trace.accountId = holder.accountId;
    return next({ ctx: { accountId: holder.accountId, holder } });
  })
  .use(async ({ ctx, path, next }) => {
    if (ctx.rateLimits) {
      await enforceRateLimit(ctx.repositories.rateLimits, ctx.rateLimits, { tokenId: ctx.holder.tokenId, procedurePath: path }, ctx.setHeader);
    }
    return next();
  })
  // Decided by procedure type alone: every mutation (REST POST, PATCH, DELETE) may write; queries only read.
  .use(({ ctx, type, next }) => {
    if (type === "mutation" && ctx.holder.scope !== "write") {
      throw new ApiError("FORBIDDEN", "This token has the read scope: it may only read (GET), not make changes");
    }
    return next();
  })
  .use(async ({ ctx, type, path, getRawInput, next }) => {
    const key = type === "mutation" ? idempotencyKeyOf(ctx.idempotencyKey, ctx.callsInRequest) : undefined;
    if (key === undefined) return next();
    const fingerprint = requestFingerprint(path, await getRawInput());
    const run = await runIdempotently(
      ctx.repositories.idempotencyKeys,
      { accountId: ctx.accountId, key, fingerprint, setHeader: ctx.setHeader, log: ctx.trace.log },
      () => next(),
      (result): Outcome => (result.ok ? { ok: true, data: result.data } : { ok: false, error: toErrorBody(result.error) }),
    );
    if ("ran" in run) return run.ran;
    ctx.setHeader("Idempotent-Replayed", "true");
    const { replayed } = run;
    if (!replayed.ok) throw new ApiError(replayed.error.code, replayed.error.message, replayed.error.issues);
    return { ok: true as const, data: replayed.data, ctx: {}, marker: middlewareMarker };
  });

/** Operator calls, enabled only when the server was started with ADMIN_TOKEN. */
export const adminProcedure = t.procedure.use(async ({ ctx, type, next }) => {
  if (!ctx.adminToken) throw new ApiError("FORBIDDEN", "The admin API is disabled: start the server with ADMIN_TOKEN set");
  const token = bearerToken(ctx.authorization);
  if (!token || !secretsEqual(token, ctx.adminToken)) throw new ApiError("UNAUTHORIZED", "Invalid admin token");
  if (type === "mutation" && ctx.idempotencyKey !== undefined) {
    throw badRequest("Idempotency-Key is not accepted on admin calls: their answers hold token secrets, which are never stored");
  }
  return next();
});
