import { ObjectId } from "mongodb";
import { encodeCursor } from "../../db/pagination.js";
import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { evaluateCustomerAlerts, MAX_ALERTS_PER_ACCOUNT } from "./evaluate.js";

/** (alert, customer) evaluations one account gets per scheduler tick: the sweep's bounded share of a tick. */
export const SWEEP_EVALUATIONS_PER_ACCOUNT = 20;

/**
 * The scheduler's catch-up for an account: evaluates the current period of the least recently swept alerts, for their
 * customer or, for an every-customer alert, the next customers of its walk, `SWEEP_EVALUATIONS_PER_ACCOUNT` in all.
 * What a crash between ingestion and evaluation left unevaluated (or unpublished) is caught up within a walk.
 * Never throws: a failure is logged, and the alert is swept again later.
 */
export async function sweepAlerts(repositories: Repositories, accountId: string, now: Date, log: Logger) {
  try {
    let budget = SWEEP_EVALUATIONS_PER_ACCOUNT;
    const alerts = await repositories.alerts.nextToSweep(accountId, Math.min(budget, MAX_ALERTS_PER_ACCOUNT));
    for (const alert of alerts) {
      if (budget <= 0) break;
      const after = alert.sweptThroughCustomerId;
      const limit = budget;
      const customerIds =
        alert.customerId !== null
          ? [alert.customerId]
          : (
              await repositories.customers.list(accountId, {
                limit,
                ...(after && { cursor: encodeCursor(new ObjectId(after)) }),
              })
            ).items.map((customer) => customer.id);
      for (const customerId of customerIds) {
        await evaluateCustomerAlerts(repositories, accountId, customerId, [alert], [now], now);
      }
      budget -= Math.max(customerIds.length, 1);
      const walkedAll = alert.customerId !== null || customerIds.length < limit;
      await repositories.alerts.markSwept(accountId, alert.id, walkedAll ? null : (customerIds.at(-1) ?? null), now);
    }
  } catch (error) {
    log.error({ err: error, accountId }, "alert sweep failed; the account's alerts are swept again next tick");
  }
}
