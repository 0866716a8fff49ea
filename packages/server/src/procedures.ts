import { audited, auditedOperator } from "./middleware/audit.js";
import { authenticateAccount, authenticateOperator } from "./middleware/authenticate.js";
import { limitAccountCalls, limitTokenCalls } from "./middleware/calls-in-flight.js";
import { idempotent, refuseIdempotencyKey } from "./middleware/idempotency.js";
import { rateLimit } from "./middleware/rate-limit.js";
import { requireScope } from "./middleware/scope.js";
import { onCallersClock } from "./middleware/test-clock.js";
import { t } from "./trpc.js";

/**
 * A billing call, in this order: the call waits for a slot of the token it presents (429 when none frees in time),
 * the bearer token decides the account (401), the call waits for a slot of the account (429), it counts against the
 * token's rate limit (429), the token's scope must allow it (403), the call runs on its account's clock (a test
 * account's: middleware/test-clock.ts), a mutation with an `Idempotency-Key` runs at most once, and one that changed
 * something appends an entry to the audit log (middleware/audit.ts). Every query is then scoped to the account.
 */
export const accountProcedure = t.procedure
  .use(limitTokenCalls)
  .use(authenticateAccount)
  .use(limitAccountCalls)
  .use(rateLimit)
  .use(requireScope)
  .use(onCallersClock)
  .use(idempotent)
  .use(audited);

/** Operator calls, enabled only when the server was started with ADMIN_TOKEN; their changes are audited too. */
export const adminProcedure = t.procedure.use(authenticateOperator).use(refuseIdempotencyKey).use(auditedOperator);
