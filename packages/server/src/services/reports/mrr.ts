import type { MrrQuery, MrrReport } from "@billing/shared";
import { splitByClosings } from "../../domain/reports/closing.js";
import { type MrrPeriod, mrrOf } from "../../domain/reports/mrr.js";
import { type MrrLedgerEntries, openingOf, recordedBefore, withLateEntries } from "../../domain/reports/mrr-closing.js";
import { periodsOf } from "../../domain/reports/revenue.js";
import { amountOf } from "../../presenters/money.js";
import { presentMrrMonth } from "../../presenters/reports.js";
import type { CallScope } from "../call-scope.js";

type Scope = Pick<CallScope, "repositories" | "accountId">;

/**
 * MRR per calendar month of [from, to) (the first and last cut at them): at each month's end, and its movements by
 * contract. A whole month that is closed (services/reports/closing.ts) is read from its closing, with the contracts
 * that have an entry recorded since its cut taken again from the ledger; every other stretch of months from the MRR
 * ledger's curves of the contracts live in it and their usages, never from every contract or invoice.
 * `customerId` (a service id, resolved by the router): that customer's contracts only, from the ledger (closings are
 * the account's).
 */
export async function mrrReport({ repositories, accountId }: Scope, query: MrrQuery): Promise<MrrReport> {
  const { currency, customerId } = query;
  const periods = periodsOf(new Date(query.from), new Date(query.to), "MONTH");
  const first = periods[0];
  const last = periods.at(-1);
  if (!first || !last) return { currency, opening: amountOf(0), months: [] };
  const closings =
    customerId === undefined
      ? await repositories.reportClosings.inRange(accountId, currency, "mrr", first.start, last.end)
      : [];
  const { closed, runs } = splitByClosings(periods, closings);
  const [late, ...read] = await Promise.all([
    lateEntries({ repositories, accountId }, currency, closings),
    ...runs.map(({ from, to }) =>
      repositories.mrrLedger.inWindow(
        accountId,
        currency,
        periods[from]?.start ?? first.start,
        periods[to - 1]?.end ?? last.end,
        customerId,
      ),
    ),
  ]);
  const fromLedger = new Map<number, MrrPeriod>();
  let opening: number | undefined;
  runs.forEach(({ from, to }, index) => {
    const { curves, usages } = recordedBefore(read[index] ?? { curves: [], usages: [] });
    const run = mrrOf(curves, usages, periods.slice(from, to));
    if (from === 0) opening = run.opening;
    run.periods.forEach((period, offset) => {
      fromLedger.set(from + offset, period);
    });
  });
  const months = periods.map((period, index) => {
    const closing = closed[index];
    return closing ? withLateEntries(closing.figures, period, closing.cut, late) : fromLedger.get(index);
  });
  const firstMonth = months[0];
  return {
    currency,
    opening: amountOf(opening ?? (firstMonth ? openingOf(firstMonth) : 0)),
    months: months.flatMap((month) => (month ? [presentMrrMonth(month)] : [])),
  };
}

/**
 * Every entry of the contracts with one recorded since the earliest cut of `closings`, those their months need
 * (usages of cycles ending in them and the 62 days before: ofContracts reads that far back).
 */
async function lateEntries(
  { repositories, accountId }: Scope,
  currency: string,
  closings: readonly { month: Date; end: Date; cut: Date }[],
): Promise<MrrLedgerEntries> {
  const [first, last] = [closings[0], closings.at(-1)];
  if (!first || !last) return { curves: [], usages: [] };
  const since = new Date(Math.min(...closings.map(({ cut }) => cut.getTime())));
  const contractIds = await repositories.mrrLedger.recordedSince(accountId, currency, since);
  return repositories.mrrLedger.ofContracts(accountId, contractIds, first.month, last.end);
}
