import type { Logger } from "../logger.js";
import type { Repositories } from "../repositories/index.js";

/**
 * Whom a service works for: the data layer, the account, and the log of the request or billing run (for what could
 * not be published, or went wrong). A request passes scopeOf(its context); a billing run passes its pass. A service
 * that neither logs nor publishes takes `Pick<CallScope, "repositories" | "accountId">`.
 */
export interface CallScope {
  repositories: Repositories;
  accountId: string;
  log: Logger;
}

/** The scope of an authenticated call: its context's data layer and account, logging under the request. */
export const scopeOf = (ctx: { repositories: Repositories; accountId: string; trace: { log: Logger } }): CallScope => ({
  repositories: ctx.repositories,
  accountId: ctx.accountId,
  log: ctx.trace.log,
});
