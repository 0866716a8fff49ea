import { DAY_MS } from "@billing/shared";
import { mergeBalances, monthAfter, monthOf, ROWS_PER_CLOSING_PART } from "../../domain/reports/closing.js";
import { mrrOf } from "../../domain/reports/mrr.js";
import { recordedBefore } from "../../domain/reports/mrr-closing.js";
import { revenueOf } from "../../domain/reports/revenue.js";
import type { Repositories } from "../../repositories/index.js";
import type { ClosedReport, ClosingFigures, ReportClosing } from "../../repositories/report-closings.js";

/**
 * When months close: `afterMonthEndMs` after a month's end (by real time: a closing is exact whenever it is taken,
 * so the account's test clock does not matter), summing the entries recorded up to `recordMarginMs` before the
 * closing (an entry is stamped just before its insert: one whose insert takes longer than the margin to land
 * could be missed by a closing taken meanwhile, so the margin is far above an insert's time). `rowsPerPart`: the
 * rows a closing's document holds at most (ROWS_PER_CLOSING_PART; tests make it small).
 */
export interface ClosingTiming {
  afterMonthEndMs: number;
  recordMarginMs: number;
  rowsPerPart?: number;
}

/** 8 days: arrears invoices of the month (made up to a 7-day grace period after it) are in before it closes. */
export const DEFAULT_CLOSING_TIMING: ClosingTiming = { afterMonthEndMs: 8 * DAY_MS, recordMarginMs: 5 * 60_000 };

/** Months closed per account and upkeep tick at most (each report and currency counts). */
export const MONTHS_PER_CLOSING_STEP = 24;

type Scope = { repositories: Repositories; accountId: string };

/** After every month: what the latest closing of all is read before. */
const END_OF_TIME = new Date(8.64e15);

/**
 * Closes the account's ended months not closed yet, oldest first, for each report and currency of its ledgers, from
 * the month of the ledger's earliest entry (earlier months are read from the ledger, as a month not closed is), at
 * most `budget` months. Returns how many it closed. Each month is one unique insert: two instances close it once.
 */
export async function closeAccountMonths(
  { repositories, accountId }: Scope,
  now: Date,
  timing: ClosingTiming = DEFAULT_CLOSING_TIMING,
  budget = MONTHS_PER_CLOSING_STEP,
): Promise<number> {
  const closable = (month: Date) => monthAfter(month).getTime() + timing.afterMonthEndMs <= now.getTime();
  const cutNow = new Date(now.getTime() - timing.recordMarginMs);
  const ledgers: {
    report: ClosedReport;
    currencies: string[];
    first: (currency: string) => Promise<Date | undefined>;
  }[] = [
    {
      report: "receivables",
      currencies: await repositories.receivableEntries.currencies(accountId),
      first: (currency) => repositories.receivableEntries.firstDated(accountId, currency),
    },
    {
      report: "revenue",
      currencies: await repositories.revenueSchedules.currencies(accountId),
      first: (currency) => repositories.revenueSchedules.firstBilled(accountId, currency),
    },
    {
      report: "collections",
      currencies: await repositories.collectionEntries.currencies(accountId),
      first: (currency) => repositories.collectionEntries.firstDated(accountId, currency),
    },
    {
      report: "mrr",
      currencies: await repositories.mrrLedger.currencies(accountId),
      first: (currency) => repositories.mrrLedger.firstStart(accountId, currency),
    },
  ];
  let closed = 0;
  for (const { report, currencies, first } of ledgers)
    for (const currency of currencies) {
      let latest = await repositories.reportClosings.latestBefore(accountId, currency, report, END_OF_TIME);
      let month = latest ? monthAfter(latest.month) : await first(currency).then((at) => at && monthOf(at));
      while (month && closable(month) && closed < budget) {
        // A cut never before the previous month's: what that one summed is not summed again.
        const cut = latest && latest.cut > cutNow ? latest.cut : cutNow;
        const [closingMonth, previous] = [month, latest];
        const figuresAt = (at: Date) =>
          figuresOf({ repositories, accountId }, report, currency, closingMonth, at, previous);
        const closing = {
          accountId,
          currency,
          report,
          month: closingMonth,
          end: monthAfter(closingMonth),
          cut,
          figures: await figuresAt(cut),
        } as ReportClosing;
        // Begun by another instance (or by a pass that stopped half-way): its cut decides, and the next month chains
        // on the closing as stored.
        latest = await repositories.reportClosings.record(
          closing,
          figuresAt,
          timing.rowsPerPart ?? ROWS_PER_CLOSING_PART,
        );
        closed += 1;
        month = closing.end;
      }
    }
  return closed;
}

/** A month's figures from the entries recorded before `cut`; receivables chain on the month before (`previous`). */
async function figuresOf(
  { repositories, accountId }: Scope,
  report: ClosedReport,
  currency: string,
  month: Date,
  cut: Date,
  previous: ReportClosing | undefined,
): Promise<ClosingFigures[ClosedReport]> {
  const end = monthAfter(month);
  if (report === "mrr") {
    // The report's own read of the month, of the entries recorded before the cut.
    const entries = await repositories.mrrLedger.inWindow(accountId, currency, month, end);
    const { curves, usages } = recordedBefore(entries, cut);
    const [period] = mrrOf(curves, usages, [{ start: month, end }]).periods;
    if (!period) throw new Error("mrrOf answers every period it is asked");
    const { start: _, end: __, ...figures } = period;
    return figures;
  }
  if (report === "collections") {
    const { PAYMENT, REFUND } = await repositories.collectionEntries.sums(accountId, currency, month, end, cut);
    return { payments: PAYMENT, refunds: REFUND };
  }
  if (report === "revenue") {
    // A period's figures are sums over schedules: added up a batch at a time.
    const sum = { billed: 0, recognized: 0, deferred: 0 };
    await repositories.revenueSchedules.eachInWindow(accountId, currency, { from: month, to: end }, (batch) => {
      const recorded = batch.filter(({ recordedAt }) => recordedAt === undefined || recordedAt < cut);
      const [period] = revenueOf(recorded, [{ start: month, end }]);
      sum.billed += period?.billed ?? 0;
      sum.recognized += period?.recognized ?? 0;
      sum.deferred += period?.deferred ?? 0;
    });
    return sum;
  }
  const entries = repositories.receivableEntries;
  if (!previous)
    return { balances: await entries.balancesDated(accountId, currency, { before: end, recordedCut: cut }) };
  const { figures, end: from, cut: since } = previous as ReportClosing<"receivables">;
  const [dated, late] = await Promise.all([
    entries.balancesDated(accountId, currency, { from, before: end, recordedCut: cut }),
    entries.balancesRecorded(accountId, currency, { since, until: cut, datedBefore: from }),
  ]);
  return { balances: mergeBalances(figures.balances, dated, late) };
}

/** Accounts whose months are closed per upkeep tick. */
export const ACCOUNTS_PER_CLOSING_STEP = 5;

/**
 * The upkeep worker's closings (services/upkeep/worker.ts): each step closes the months of the next few accounts in
 * id order, round and round (the place is this instance's own: a restart begins again, each closing being once).
 */
export function reportCloser(repositories: Repositories, timing: ClosingTiming = DEFAULT_CLOSING_TIMING) {
  let after: string | undefined;
  return async (now: Date): Promise<number> => {
    const accountIds = await repositories.accounts.idsAfter(after, ACCOUNTS_PER_CLOSING_STEP);
    after = accountIds.length < ACCOUNTS_PER_CLOSING_STEP ? undefined : accountIds.at(-1);
    let closed = 0;
    for (const accountId of accountIds) closed += await closeAccountMonths({ repositories, accountId }, now, timing);
    return closed;
  };
}
