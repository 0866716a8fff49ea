import type { MrrQuery, MrrReport } from "@billing/shared";
import { mrrOf } from "../../domain/reports/mrr.js";
import { periodsOf } from "../../domain/reports/revenue.js";
import { amountOf } from "../../presenters/money.js";
import { presentMrrMonth } from "../../presenters/reports.js";
import type { CallScope } from "../call-scope.js";

/**
 * MRR per calendar month of [from, to) (the first and last cut at them): at each month's end, and its movements by
 * contract, from the MRR ledger's curves of the contracts live in the window and their usages, never from every
 * contract or invoice. `customerId` (a service id, resolved by the router): that customer's contracts only.
 */
export async function mrrReport(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  { from, to, currency, customerId }: MrrQuery,
): Promise<MrrReport> {
  const start = new Date(from);
  const end = new Date(to);
  const { curves, usages } = await repositories.mrrLedger.inWindow(accountId, currency, start, end, customerId);
  const { opening, periods } = mrrOf(curves, usages, periodsOf(start, end, "MONTH"));
  return { currency, opening: amountOf(opening), months: periods.map(presentMrrMonth) };
}
