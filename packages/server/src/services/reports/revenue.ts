import type { RevenueQuery, RevenueReport } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { splitByClosings } from "../../domain/reports/closing.js";
import { periodsOf, type RevenuePeriod, revenueOf, type Unbilled, unbilledOf } from "../../domain/reports/revenue.js";
import { presentRevenuePeriod } from "../../presenters/reports.js";
import type { CallScope } from "../call-scope.js";

/** What the open cycles would bill as of now (services/billing/unbilled.ts: the router hands it over). */
export type UnbilledAsOf = (currency: string, customerId: string | undefined, now: Date) => Promise<Unbilled>;

/**
 * Revenue per period of [from, to): billed, recognized and deferred, of a closed month from its closing and the
 * schedules recorded since (revenueByPeriod), of other periods from the revenue ledger's schedules that reach into
 * them (their lines end after their start, or they were billed inside them), never from every invoice; unbilled
 * from the open cycles of at most UNBILLED_LIMITS.contracts live contracts priced as of the account's now (none
 * always priced: `unbilled` of a period wholly after now is 0).
 */
export async function revenueReport(
  scope: Pick<CallScope, "repositories" | "accountId">,
  { from, to, interval, currency, customerId }: RevenueQuery,
  unbilledAsOf: UnbilledAsOf,
): Promise<RevenueReport> {
  const { accountId } = scope;
  const start = new Date(from);
  const end = new Date(to);
  const now = billingNow(accountId);
  const periodList = periodsOf(start, end, interval);
  const [periods, unbilled] = await Promise.all([
    revenueByPeriod(scope, currency, periodList, customerId),
    unbilledAsOf(currency, customerId, now),
  ]);
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

/**
 * Billed, recognized and deferred per period: a period that is exactly a closed month (services/reports/closing.ts)
 * is its closing plus what the schedules recorded since its cut add to it (late postings: a credit note or a void
 * dated in it, an arrears invoice of it made after it closed); each stretch of other periods (the open month, a
 * month cut by the window, days) is read from the schedules reaching into it. One customer's (`customerId`): from
 * its schedules alone (closings are the account's).
 */
async function revenueByPeriod(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  currency: string,
  periods: { start: Date; end: Date }[],
  customerId: string | undefined,
): Promise<RevenuePeriod[]> {
  const first = periods[0];
  const last = periods.at(-1);
  if (!first || !last) return [];
  const closings =
    customerId === undefined
      ? await repositories.reportClosings.inRange(accountId, currency, "revenue", first.start, last.end)
      : [];
  const { closed, runs } = splitByClosings(periods, closings);
  const cuts = closed.flatMap((closing) => (closing ? [closing.cut.getTime()] : []));
  const schedules = repositories.revenueSchedules;
  const [late, ...read] = await Promise.all([
    cuts.length === 0 ? [] : schedules.recordedSince(accountId, currency, new Date(Math.min(...cuts))),
    ...runs.map(({ from, to }) =>
      schedules.inWindow(
        accountId,
        currency,
        periods[from]?.start ?? first.start,
        periods[to - 1]?.end ?? last.end,
        customerId,
      ),
    ),
  ]);
  const fromLedger = new Map<number, RevenuePeriod>();
  runs.forEach(({ from, to }, index) => {
    revenueOf(read[index] ?? [], periods.slice(from, to)).forEach((period, offset) => {
      fromLedger.set(from + offset, period);
    });
  });
  return periods.map((period, index) => {
    const closing = closed[index];
    if (!closing) return fromLedger.get(index) ?? { ...period, billed: 0, recognized: 0, deferred: 0 };
    const since = late.filter(({ recordedAt }) => recordedAt !== undefined && recordedAt >= closing.cut);
    const [added] = revenueOf(since, [period]);
    const { billed, recognized, deferred } = closing.figures;
    return {
      ...period,
      billed: billed + (added?.billed ?? 0),
      recognized: recognized + (added?.recognized ?? 0),
      deferred: deferred + (added?.deferred ?? 0),
    };
  });
}
