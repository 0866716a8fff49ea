import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { bearerToken, secretsEqual } from "./auth/tokens.js";
import { ApiError, HTTP_STATUS, toErrorBody } from "./errors.js";
import type { Repositories } from "./repositories/index.js";

/** What every call sees: the data layer and the caller's credentials, nothing cached between calls. */
export interface Context {
  repositories: Repositories;
  authorization: string | undefined;
  adminToken: string | undefined;
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

/** A billing call: the bearer token decides the account, and every query is scoped to it. */
export const accountProcedure = t.procedure.use(async ({ ctx, next }) => {
  const token = bearerToken(ctx.authorization);
  if (!token) throw new ApiError("UNAUTHORIZED", "Missing or malformed Authorization header: expected `Bearer <token>`");
  const accountId = await ctx.repositories.tokens.accountIdOf(token);
  if (!accountId) throw new ApiError("UNAUTHORIZED", "Unknown or revoked token");
  return next({ ctx: { accountId } });
});

/** Operator calls, enabled only when the server was started with ADMIN_TOKEN. */
export const adminProcedure = t.procedure.use(async ({ ctx, next }) => {
  if (!ctx.adminToken) throw new ApiError("FORBIDDEN", "The admin API is disabled: start the server with ADMIN_TOKEN set");
  const token = bearerToken(ctx.authorization);
  if (!token || !secretsEqual(token, ctx.adminToken)) throw new ApiError("UNAUTHORIZED", "Invalid admin token");
  return next();
});
