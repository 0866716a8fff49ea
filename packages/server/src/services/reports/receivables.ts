import type { ReceivablesQuery, ReceivablesReport } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { agingOf } from "../../domain/reports/receivables.js";
import { presentAging } from "../../presenters/reports.js";
import type { CallScope } from "../call-scope.js";

/**
 * The receivables aging as of `asOf` (default: the account's now): the receivables ledger summed up to it by the
 * database (one row per customer and due date), each balance in its bucket by days past due.
 */
export async function receivablesReport(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  { asOf, currency }: ReceivablesQuery,
  now: Date,
): Promise<ReceivablesReport> {
  const at = asOf === undefined ? billingNow(accountId, now) : new Date(asOf);
  const balances = await repositories.receivableEntries.balances(accountId, currency, at);
  const { customers, total } = agingOf(balances, at);
  return {
    asOf: at.toISOString(),
    currency,
    customers: customers.map(({ customerId, aging }) => ({ customerId, aging: presentAging(aging) })),
    total: presentAging(total),
  };
}
