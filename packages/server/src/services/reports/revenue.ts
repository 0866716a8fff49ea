import type { RevenueQuery, RevenueReport } from "@billing/shared";
import { periodsOf, revenueOf } from "../../domain/reports/revenue.js";
import { presentRevenuePeriod } from "../../presenters/reports.js";
import type { CallScope } from "../call-scope.js";

/**
 * Revenue per period of [from, to): billed, recognized and deferred, from the revenue ledger's schedules that reach
 * into the window (their lines end after `from`, or they were billed inside it), never from every invoice.
 */
export async function revenueReport(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  { from, to, interval, currency, customerId }: RevenueQuery,
): Promise<RevenueReport> {
  const start = new Date(from);
  const end = new Date(to);
  const schedules = await repositories.revenueSchedules.inWindow(accountId, currency, start, end, customerId);
  const periods = revenueOf(schedules, periodsOf(start, end, interval));
  return { currency, interval, customerId: customerId ?? null, periods: periods.map(presentRevenuePeriod) };
}
