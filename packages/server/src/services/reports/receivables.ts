import type { ReceivablesQuery, ReceivablesReport } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { mergeBalances, monthOf } from "../../domain/reports/closing.js";
import { agingOf, type OpenBalance } from "../../domain/reports/receivables.js";
import { presentAging } from "../../presenters/reports.js";
import type { CallScope } from "../call-scope.js";

/**
 * The receivables aging as of `asOf` (default: the account's now), each balance in its bucket by days past due, from
 * what customers owed by due date: the latest month closed before asOf's (services/reports/closing.ts), plus the
 * entries dated after it up to asOf and those recorded since it was closed but dated before its end (late
 * postings); the whole ledger up to asOf, summed by the database, when no month before is closed.
 */
export async function receivablesReport(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  { asOf, currency }: ReceivablesQuery,
  now: Date,
): Promise<ReceivablesReport> {
  const at = asOf === undefined ? billingNow(accountId, now) : new Date(asOf);
  const { customers, total } = agingOf(await balancesAsOf({ repositories, accountId }, currency, at), at);
  return {
    asOf: at.toISOString(),
    currency,
    customers: customers.map(({ customerId, aging }) => ({ customerId, aging: presentAging(aging) })),
    total: presentAging(total),
  };
}

/** What each customer owed by due date as of `at` (entries dated at or before it). */
export async function balancesAsOf(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  currency: string,
  at: Date,
): Promise<OpenBalance[]> {
  const entries = repositories.receivableEntries;
  const closing = await repositories.reportClosings.latestBefore(accountId, currency, "receivables", monthOf(at));
  if (!closing) return entries.balances(accountId, currency, at);
  const [dated, late] = await Promise.all([
    entries.balancesDated(accountId, currency, { from: closing.end, before: new Date(at.getTime() + 1) }),
    entries.balancesRecorded(accountId, currency, { since: closing.cut, datedBefore: closing.end }),
  ]);
  return mergeBalances(closing.figures.balances, dated, late);
}
