import type { Db, Document } from "mongodb";
import { datedLedger } from "../db/dated-ledger.js";
import { recordedBefore } from "../db/recorded-before.js";
import { asMicros, type Micros } from "../domain/money/micros.js";
import { mergeBalances } from "../domain/reports/closing.js";
import type { OpenBalance } from "../domain/reports/receivables.js";

/**
 * One move of what a customer owes on an invoice: the change of the invoice's receivable (domain/reports/
 * receivables.ts) that its `n`-th logged change made, dated when it counts (`at`).
 */
export interface ReceivableEntry {
  accountId: string;
  invoiceId: string;
  /** The invoice change that made it: one entry per change however often the change is applied. */
  n: number;
  customerId: string;
  currency: string;
  dueDate: Date;
  at: Date;
  /** Positive: owed more (a finalization); negative: owed less (a payment, an OFFSET credit note, a void). */
  micros: Micros;
}

/** When the entry was written (real time): a closed month sums those written before its cut (report-closings.ts). */
type EntryDoc = Omit<ReceivableEntry, "micros"> & { _id: string; micros: number; recordedAt?: Date };

/** What each customer owes by due date, summed from the entries `match` picks, zeros left out. */
type Balances = (match: Document) => Promise<OpenBalance[]>;

/**
 * The receivables ledger: insert-only, one entry per invoice change that moved what is owed, written by the
 * invoice's life (services/invoices/changes.ts, report-ledgers.ts) before the invoice takes the change, so a crash
 * leaves the change pending and its completion writes the entry. Nothing updates or deletes an entry; `_id`
 * `<invoice>:<n>` makes a repeat a no-op. The receivables report sums it up to a moment, in the database.
 */
export function createReceivableEntryRepository(db: Db) {
  const entries = db.collection<EntryDoc>("receivableEntries");

  const balancesOf: Balances = async (match) => {
    const rows = await entries
      .aggregate<{ _id: { customerId: string; dueDate: Date }; micros: number }>([
        { $match: match },
        { $group: { _id: { customerId: "$customerId", dueDate: "$dueDate" }, micros: { $sum: "$micros" } } },
        { $match: { micros: { $ne: 0 } } },
      ])
      .toArray();
    return rows.map(({ _id, micros }) => ({
      customerId: _id.customerId,
      dueDate: _id.dueDate,
      micros: asMicros(micros),
    }));
  };

  return {
    ...datedLedger<EntryDoc, ReceivableEntry>(entries),

    /**
     * What each customer owes by due date in `currency` as of `asOf` (entries at or before it), summed by the
     * database: one row per customer and due date still owing (a paid invoice's nets to 0 and is not sent back).
     */
    async balances(accountId: string, currency: string, asOf: Date): Promise<OpenBalance[]> {
      return balancesOf({ accountId, currency, at: { $lte: asOf } });
    },

    /**
     * The balances of the entries dated in [from, before) (from the start when `from` is absent), only those
     * recorded before `recordedCut` when given: a month's closing, or what was dated after the closing a report
     * starts from.
     */
    async balancesDated(
      accountId: string,
      currency: string,
      { from, before, recordedCut }: { from?: Date | undefined; before: Date; recordedCut?: Date },
    ): Promise<OpenBalance[]> {
      const at = from === undefined ? { $lt: before } : { $gte: from, $lt: before };
      if (!recordedCut) return balancesOf({ accountId, currency, at });
      const parts = await Promise.all(
        recordedBefore(recordedCut).map((recorded) => balancesOf({ accountId, currency, at, ...recorded })),
      );
      return mergeBalances(...parts);
    },

    /**
     * The balances of the entries recorded in [since, until) (until now when absent) but dated before `datedBefore`:
     * the late postings into months already closed at `since`.
     */
    async balancesRecorded(
      accountId: string,
      currency: string,
      { since, until, datedBefore }: { since: Date; until?: Date | undefined; datedBefore: Date },
    ): Promise<OpenBalance[]> {
      const recordedAt = until === undefined ? { $gte: since } : { $gte: since, $lt: until };
      return balancesOf({ accountId, currency, recordedAt, at: { $lt: datedBefore } });
    },
  };
}
