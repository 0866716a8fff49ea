import type { Collection, Filter, OptionalUnlessRequiredId } from "mongodb";
import { wonInsert, wonInserts } from "./duplicate-key.js";

/**
 * An entry of a report ledger dated by `at` (receivables, collections) as stored, made by its invoice's `n`-th logged
 * change: `_id` `<invoice>:<n>`, so that a repeat is a no-op; `recordedAt`, when it was written (real time). `Entry`
 * is the entry as its repository's callers give it.
 */
interface Dated {
  _id: string;
  accountId: string;
  invoiceId: string;
  n: number;
  currency: string;
  at: Date;
  recordedAt?: Date;
}

/**
 * What the report ledgers dated by `at` declare, write and read alike (repositories/receivable-entries.ts,
 * collection-entries.ts): their indexes — an account's entries in one currency by date, and those recorded since a
 * month was closed (late postings, added to its closing on read: their date bounds the index's keys) — their
 * insert-only writes, their currencies, and the date of an account's first entry in one.
 */
export function datedLedger<T extends Dated, Entry extends Pick<T, "invoiceId" | "n">>(entries: Collection<T>) {
  const docOf = (entry: Entry, recordedAt: Date) =>
    ({ ...entry, _id: `${entry.invoiceId}:${entry.n}`, recordedAt }) as unknown as OptionalUnlessRequiredId<T>;
  return {
    async ensureIndexes() {
      await entries.createIndex({ accountId: 1, currency: 1, at: 1 });
      await entries.createIndex({ accountId: 1, currency: 1, recordedAt: 1, at: 1 });
    },

    /** Writes the entry once: false when it was already written. */
    record: (entry: Entry): Promise<boolean> => wonInsert(entries.insertOne(docOf(entry, new Date()))),

    /** record of several entries in one insert, each written once. */
    async recordMany(batch: Entry[]): Promise<void> {
      if (batch.length === 0) return;
      const recordedAt = new Date();
      const docs = batch.map((entry) => docOf(entry, recordedAt));
      await wonInserts(entries.insertMany(docs, { ordered: false }), docs.length);
    },

    /** The currencies of the account's entries. */
    currencies: (accountId: string): Promise<string[]> => entries.distinct("currency", { accountId } as Filter<T>),

    /** When the account's earliest entry in `currency` is dated. */
    async firstDated(accountId: string, currency: string): Promise<Date | undefined> {
      const filter = { accountId, currency } as Filter<T>;
      const [first] = await entries.find(filter).sort({ at: 1 }).limit(1).toArray();
      return first?.at;
    },
  };
}
