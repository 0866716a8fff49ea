import type { RevenueQuery, RevenueReport } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { periodsOf, revenueOf, type Unbilled, unbilledOf } from "../../domain/reports/revenue.js";
import { presentRevenuePeriod } from "../../presenters/reports.js";
import type { CallScope } from "../call-scope.js";

/** What the open cycles would bill as of now (services/billing/unbilled.ts: the router hands it over). */
export type UnbilledAsOf = (currency: string, customerId: string | undefined, now: Date) => Promise<Unbilled>;

/**
 * Revenue per period of [from, to): billed, recognized and deferred, from the revenue ledger's schedules that reach
 * into the window (their lines end after `from`, or they were billed inside it), never from every invoice; unbilled
 * from the open cycles of at most UNBILLED_LIMITS.contracts live contracts priced as of the account's now (none
 * always priced: `unbilled` of a period wholly after now is 0).
 */
export async function revenueReport(
  scope: Pick<CallScope, "repositories" | "accountId">,
  { from, to, interval, currency, customerId }: RevenueQuery,
  unbilledAsOf: UnbilledAsOf,
): Promise<RevenueReport> {
  const { repositories, accountId } = scope;
  const start = new Date(from);
  const end = new Date(to);
  const now = billingNow(accountId);
  const [schedules, unbilled] = await Promise.all([
    repositories.revenueSchedules.inWindow(accountId, currency, start, end, customerId),
    unbilledAsOf(currency, customerId, now),
  ]);
  const periodList = periodsOf(start, end, interval);
  const periods = revenueOf(schedules, periodList);
  const unbilledByPeriod = unbilledOf(unbilled.lines, periodList, now, currency);
  return {
    currency,
    interval,
    customerId: customerId ?? null,
    periods: periods.map((period, index) =>
      presentRevenuePeriod({ ...period, unbilled: unbilledByPeriod[index] ?? 0 }),
    ),
    unbilled: { asOf: now.toISOString(), contracts: unbilled.contracts, truncated: unbilled.truncated },
  };
}
