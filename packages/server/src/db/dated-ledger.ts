import type { Collection, Filter } from "mongodb";

/** An entry of a report ledger dated by `at` (receivables, collections). */
interface Dated {
  accountId: string;
  currency: string;
  at: Date;
}

/**
 * What the report ledgers dated by `at` declare and read alike (repositories/receivable-entries.ts,
 * collection-entries.ts): their indexes — an account's entries in one currency by date, and those recorded since a
 * month was closed (late postings, added to its closing on read: their date bounds the index's keys) — their
 * currencies, and the date of an account's first entry in one.
 */
export function datedLedger<T extends Dated>(entries: Collection<T>) {
  return {
    async ensureIndexes() {
      await entries.createIndex({ accountId: 1, currency: 1, at: 1 });
      await entries.createIndex({ accountId: 1, currency: 1, recordedAt: 1, at: 1 });
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
