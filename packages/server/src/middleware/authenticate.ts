// The factory behind `t.middleware`, here for middleware that runs after authentication and reads its context.
import { createMiddlewareFactory } from "@trpc/server/unstable-core-do-not-import";
import { bearerToken, secretsEqual } from "../auth/tokens.js";
import type { Context, Meta } from "../context.js";
import { forbidden, unauthorized } from "../domain/errors.js";
import type { TokenHolder } from "../repositories/tokens.js";
import { t } from "../trpc.js";

/** What an authenticated billing call sees besides the context: the account it acts for, and its token. */
type AccountContext = Context & { accountId: string; holder: TokenHolder };

/** Middleware of authenticated billing calls: the policies that come after `authenticateAccount`. */
export const accountMiddleware = createMiddlewareFactory<AccountContext, Meta>();

/** The bearer token decides the account (401 without a live one), and the request's log line names it. */
export const authenticateAccount = t.middleware(async ({ ctx, next }) => {
  const token = bearerToken(ctx.authorization);
  if (!token) throw unauthorized("Missing or malformed Authorization header: expected `Bearer <token>`");
  const holder = await ctx.repositories.tokens.authenticate(token);
  if (!holder) throw unauthorized("Unknown or revoked token");
  ctx.trace.accountId = holder.accountId;
  return next({ ctx: { accountId: holder.accountId, holder } });
});

/** Operator calls, enabled only when the server was started with ADMIN_TOKEN, and only with that token. */
export const authenticateOperator = t.middleware(({ ctx, next }) => {
  if (!ctx.adminToken) throw forbidden("The admin API is disabled: start the server with ADMIN_TOKEN set");
  const token = bearerToken(ctx.authorization);
  if (!token || !secretsEqual(token, ctx.adminToken)) throw unauthorized("Invalid admin token");
  return next();
});
