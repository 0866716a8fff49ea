import type { Db } from "mongodb";
import { wonInsert, wonInserts } from "../db/duplicate-key.js";
import { asMicros, type Micros } from "../domain/money/micros.js";
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

type EntryDoc = Omit<ReceivableEntry, "micros"> & { _id: string; micros: number };

/**
 * The receivables ledger: insert-only, one entry per invoice change that moved what is owed, written by the
 * invoice's life (services/invoices/changes.ts, report-ledgers.ts) before the invoice takes the change, so a crash
 * leaves the change pending and its completion writes the entry. Nothing updates or deletes an entry; `_id`
 * `<invoice>:<n>` makes a repeat a no-op. The receivables report sums it up to a moment, in the database.
 */
export function createReceivableEntryRepository(db: Db) {
  const entries = db.collection<EntryDoc>("receivableEntries");

  return {
    async ensureIndexes() {
      await entries.createIndex({ accountId: 1, currency: 1, at: 1 });
    },

    /** Writes the entry once: false when it was already written. */
    async record(entry: ReceivableEntry): Promise<boolean> {
      return wonInsert(entries.insertOne({ ...entry, _id: `${entry.invoiceId}:${entry.n}` }));
    },

    /** record of several entries in one insert, each written once. */
    async recordMany(batch: ReceivableEntry[]): Promise<void> {
      if (batch.length === 0) return;
      const docs = batch.map((entry) => ({ ...entry, _id: `${entry.invoiceId}:${entry.n}` }));
      await wonInserts(entries.insertMany(docs, { ordered: false }), docs.length);
    },

    /**
     * What each customer owes by due date in `currency` as of `asOf` (entries at or before it), summed by the
     * database: one row per customer and due date still owing (a paid invoice's nets to 0 and is not sent back).
     */
    async balances(accountId: string, currency: string, asOf: Date): Promise<OpenBalance[]> {
      const rows = await entries
        .aggregate<{ _id: { customerId: string; dueDate: Date }; micros: number }>([
          { $match: { accountId, currency, at: { $lte: asOf } } },
          { $group: { _id: { customerId: "$customerId", dueDate: "$dueDate" }, micros: { $sum: "$micros" } } },
          { $match: { micros: { $ne: 0 } } },
        ])
        .toArray();
      return rows.map(({ _id, micros }) => ({
        customerId: _id.customerId,
        dueDate: _id.dueDate,
        micros: asMicros(micros),
      }));
    },
  };
}
