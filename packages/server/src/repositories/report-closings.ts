import type { Db } from "mongodb";
import { wonInsert, wonInserts } from "../db/duplicate-key.js";
import type { Micros } from "../domain/money/micros.js";
import { partsOf, ROWS_PER_CLOSING_PART, wholeClosing } from "../domain/reports/closing.js";
import type { MrrMove, MrrMovementKind, MrrPeriod } from "../domain/reports/mrr.js";
import type { OpenBalance } from "../domain/reports/receivables.js";

/** The reports whose months are closed: each month's figures kept once it has ended (docs/decisions.md). */
export type ClosedReport = "receivables" | "revenue" | "collections" | "mrr";

/** What a closed month holds, per report. */
export interface ClosingFigures {
  /** As of the month's end (every entry dated before it): what each customer owes by due date, zeros left out. */
  receivables: { balances: OpenBalance[] };
  /** The month as a revenue period: billed in it, recognized in it, deferred at its end. */
  revenue: { billed: number; recognized: number; deferred: number };
  /** Payments dated in the month and provider refunds made in it. */
  collections: { payments: Micros; refunds: Micros };
  /** The month as an MRR period: its MRR at its end and its movements, each listing its contracts. */
  mrr: Omit<MrrPeriod, "start" | "end">;
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

type Row = OpenBalance | (MrrMove & { kind: MrrMovementKind });

/**
 * A stored part: the first holds the figures that do not grow (`figures`), every part a slice of the rows that do
 * (customers' balances, contracts' movements). Closings stored before parts existed are one document with neither
 * `part`, `parts` nor `rows`, all of their figures in `figures`.
 */
type ClosingDoc = Omit<ReportClosing, "figures"> & {
  _id: string;
  closedAt: Date;
  part?: number;
  parts?: number;
  figures?: unknown;
  rows?: Row[];
};

const KINDS: MrrMovementKind[] = ["new", "expansion", "contraction", "churn", "reactivation"];

/** A closing's figures as the fixed part and the rows that grow with customers or contracts. */
function rowsOf(closing: ReportClosing): { figures: unknown; rows: Row[] } {
  if (closing.report === "receivables")
    return { figures: {}, rows: (closing as ReportClosing<"receivables">).figures.balances };
  if (closing.report !== "mrr") return { figures: closing.figures, rows: [] };
  const { movements, ...sums } = (closing as ReportClosing<"mrr">).figures;
  const amounts = Object.fromEntries(KINDS.map((kind) => [kind, movements[kind].amount]));
  const rows = KINDS.flatMap((kind) => movements[kind].contracts.map((move) => ({ kind, ...move })));
  return { figures: { ...sums, amounts }, rows };
}

/** rowsOf undone: the figures of a closing from its first part's figures and every part's rows in order. */
function figuresOf(report: ClosedReport, figures: unknown, rows: Row[] | undefined): ReportClosing["figures"] {
  if (rows === undefined || (report !== "receivables" && report !== "mrr")) return figures as ReportClosing["figures"];
  if (report === "receivables") return { balances: rows as OpenBalance[] };
  const { amounts, ...sums } = figures as Omit<ClosingFigures["mrr"], "movements"> & {
    amounts: Record<MrrMovementKind, number>;
  };
  const moves = rows as (MrrMove & { kind: MrrMovementKind })[];
  const movements = Object.fromEntries(
    KINDS.map((kind) => [
      kind,
      {
        amount: amounts[kind],
        contracts: moves.filter((row) => row.kind === kind).map(({ kind: _, ...move }) => move),
      },
    ]),
  ) as ClosingFigures["mrr"]["movements"];
  return { ...sums, movements };
}

const monthKey = (month: Date) => month.toISOString().slice(0, 7);

/** The closings among a report's parts (any order of months, parts in order within one): whole ones only. */
function wholeClosings<R extends ClosedReport>(docs: readonly ClosingDoc[]): ReportClosing<R>[] {
  const byMonth = new Map<number, ClosingDoc[]>();
  for (const doc of docs) byMonth.set(doc.month.getTime(), [...(byMonth.get(doc.month.getTime()) ?? []), doc]);
  const closings: ReportClosing<R>[] = [];
  for (const parts of byMonth.values()) {
    const whole = wholeClosing(parts.map((doc) => ({ ...doc, part: doc.part ?? 0, parts: doc.parts ?? 1 })));
    if (!whole?.[0]) continue;
    const { _id, closedAt, part, parts: count, figures, rows, ...closing } = whole[0];
    const allRows = rows && whole.flatMap((doc) => doc.rows ?? []);
    closings.push({ ...closing, figures: figuresOf(closing.report, figures, allRows) } as ReportClosing<R>);
  }
  return closings;
}

/**
 * The report closings: insert-only, one or more parts per account × currency × report × month, `_id`
 * `<account>:<currency>:<report>:<YYYY-MM>:<part>`, each part at most ROWS_PER_CLOSING_PART rows (what customers
 * owe, contracts' movements): a closing never outgrows a document. Two instances closing the same month: the first
 * part decides the cut, and each writes the rest summed at that cut, so every part is one unique insert of the same
 * content; a reader uses a closing only when all its parts are there. Written by the upkeep worker
 * (services/reports/closing.ts); read by the reports for the whole months of a window.
 */
export function createReportClosingRepository(db: Db) {
  const closings = db.collection<ClosingDoc>("reportClosings");

  /** The report's whole closed months starting in [from, to), in month order. */
  async function inRange<R extends ClosedReport>(
    accountId: string,
    currency: string,
    report: R,
    from: Date,
    to: Date,
  ): Promise<ReportClosing<R>[]> {
    const docs = await closings
      .find({ accountId, currency, report, month: { $gte: from, $lt: to } })
      .sort({ month: 1, part: 1 })
      .toArray();
    return wholeClosings<R>(docs);
  }

  return {
    async ensureIndexes() {
      // A report's closed months in a window (their parts in order), and an account's latest closed month.
      await closings.createIndex({ accountId: 1, currency: 1, report: 1, month: 1, part: 1 });
    },

    /**
     * Writes the closed month, first part first: when another instance's first part is there, its cut decides and
     * the rest is summed again at it (`figuresAt`) before being written. Returns the month's closing as stored.
     */
    async record<R extends ClosedReport>(
      closing: ReportClosing<R>,
      figuresAt: (cut: Date) => Promise<ClosingFigures[R]>,
      rowsPerPart = ROWS_PER_CLOSING_PART,
    ): Promise<ReportClosing<R>> {
      const prefix = `${closing.accountId}:${closing.currency}:${closing.report}:${monthKey(closing.month)}`;
      const docsOf = (whole: ReportClosing<R>): ClosingDoc[] => {
        const { figures, rows } = rowsOf(whole);
        const { figures: _, ...fields } = whole;
        const parts = partsOf(rows, rowsPerPart);
        const closedAt = new Date();
        return parts.map((slice, part) => ({
          ...fields,
          _id: `${prefix}:${part}`,
          closedAt,
          part,
          parts: parts.length,
          ...(part === 0 && { figures }),
          rows: slice,
        }));
      };
      let stored = closing;
      let [first, ...rest] = docsOf(closing);
      if (first && !(await wonInsert(closings.insertOne(first)))) {
        const winner = await closings.findOne({ _id: `${prefix}:0`, accountId: closing.accountId });
        if (winner && winner.cut.getTime() !== closing.cut.getTime()) {
          stored = { ...closing, cut: winner.cut, figures: await figuresAt(winner.cut) };
          [first, ...rest] = docsOf(stored);
        }
      }
      if (rest.length > 0) await wonInserts(closings.insertMany(rest, { ordered: false }), rest.length);
      return stored;
    },

    inRange,

    /**
     * The report's latest whole closed month starting before `before` (its end may be after `before`): the latest
     * month's last part says how many there are (one read for a closing of one part); a month not whole yet (being
     * written) is passed over for the one before.
     */
    async latestBefore<R extends ClosedReport>(
      accountId: string,
      currency: string,
      report: R,
      before: Date,
    ): Promise<ReportClosing<R> | undefined> {
      for (let until = before; ; ) {
        const [last] = await closings
          .find({ accountId, currency, report, month: { $lt: until } })
          .sort({ month: -1, part: -1 })
          .limit(1)
          .toArray();
        if (!last) return undefined;
        const [whole] =
          (last.parts ?? 1) > 1
            ? await inRange<R>(accountId, currency, report, last.month, last.end)
            : wholeClosings<R>([last]);
        if (whole) return whole;
        until = last.month;
      }
    },
  };
}
