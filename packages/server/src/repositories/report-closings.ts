import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import type { Micros } from "../domain/money/micros.js";
import type { OpenBalance } from "../domain/reports/receivables.js";

/** The reports whose months are closed: each month's figures kept once it has ended (docs/decisions.md). */
export type ClosedReport = "receivables" | "revenue" | "collections";

/** What a closed month holds, per report. */
export interface ClosingFigures {
  /** As of the month's end (every entry dated before it): what each customer owes by due date, zeros left out. */
  receivables: { balances: OpenBalance[] };
  /** The month as a revenue period: billed in it, recognized in it, deferred at its end. */
  revenue: { billed: number; recognized: number; deferred: number };
  /** Payments dated in the month and provider refunds made in it. */
  collections: { payments: Micros; refunds: Micros };
}

/**
 * One month of one report of an account's currency, closed: its figures from the ledger's entries recorded before
 * `cut` (those recorded since are added on read: late postings lose nothing).
 */
export interface ReportClosing<R extends ClosedReport = ClosedReport> {
  accountId: string;
  currency: string;
  report: R;
  /** The month's first instant (UTC) and the next month's. */
  month: Date;
  end: Date;
  /** The entries it sums are those recorded (`recordedAt`) before this instant, or with no `recordedAt` (older). */
  cut: Date;
  figures: ClosingFigures[R];
}

type ClosingDoc = ReportClosing & { _id: string; closedAt: Date };

const monthKey = (month: Date) => month.toISOString().slice(0, 7);

const toClosing = <R extends ClosedReport>({ _id, closedAt, ...closing }: ClosingDoc) => closing as ReportClosing<R>;

/**
 * The report closings: insert-only, one document per account × currency × report × month, `_id`
 * `<account>:<currency>:<report>:<YYYY-MM>`, so two instances closing the same month write it once (the loser's is
 * dropped: both summed the same entries but for those recorded between their cuts, which reads add either way).
 * Written by the upkeep worker (services/reports/closing.ts); read by the reports for the whole months of a window.
 */
export function createReportClosingRepository(db: Db) {
  const closings = db.collection<ClosingDoc>("reportClosings");

  return {
    async ensureIndexes() {
      // A report's closed months in a window, and an account's latest closed month (the next to close).
      await closings.createIndex({ accountId: 1, currency: 1, report: 1, month: 1 });
    },

    /** Writes the closed month once: false when it was already closed (by another instance). */
    async record(closing: ReportClosing): Promise<boolean> {
      const _id = `${closing.accountId}:${closing.currency}:${closing.report}:${monthKey(closing.month)}`;
      return wonInsert(closings.insertOne({ ...closing, _id, closedAt: new Date() }));
    },

    /** The report's closed months starting in [from, to), in month order. */
    async inRange<R extends ClosedReport>(
      accountId: string,
      currency: string,
      report: R,
      from: Date,
      to: Date,
    ): Promise<ReportClosing<R>[]> {
      const docs = await closings
        .find({ accountId, currency, report, month: { $gte: from, $lt: to } })
        .sort({ month: 1 })
        .toArray();
      return docs.map((doc) => toClosing<R>(doc));
    },

    /** The report's latest closed month starting before `before` (its end may be after `before`). */
    async latestBefore<R extends ClosedReport>(
      accountId: string,
      currency: string,
      report: R,
      before: Date,
    ): Promise<ReportClosing<R> | undefined> {
      const [doc] = await closings
        .find({ accountId, currency, report, month: { $lt: before } })
        .sort({ month: -1 })
        .limit(1)
        .toArray();
      return doc && toClosing<R>(doc);
    },
  };
}
