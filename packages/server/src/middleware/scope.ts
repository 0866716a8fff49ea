import { forbidden } from "../domain/errors.js";
import { accountMiddleware } from "./authenticate.js";

/**
 * A read token may only read. Decided by procedure type alone: every mutation (REST POST, PATCH, DELETE) may
 * write, queries only read.
 */
export const requireScope = accountMiddleware(({ ctx, type, next }) => {
  if (type === "mutation" && ctx.holder.scope !== "write") {
    throw forbidden("This token has the read scope: it may only read (GET), not make changes");
  }
  return next();
});
