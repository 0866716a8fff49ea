import { forbidden } from "../domain/errors.js";
import { accountMiddleware } from "./authenticate.js";

/**
 * A read token may only read. Decided by procedure type: every mutation (REST POST, PATCH, DELETE) may write,
 * queries only read, except a mutation whose meta says `readOnly` (it writes nothing; POST only for its body).
 */
export const requireScope = accountMiddleware(({ ctx, type, meta, next }) => {
  if (type === "mutation" && !meta?.readOnly && ctx.holder.scope !== "write") {
    throw forbidden("This token has the read scope: it may only read (GET), not make changes");
  }
  return next();
});
