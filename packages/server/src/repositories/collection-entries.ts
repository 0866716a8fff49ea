import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import { asMicros, type Micros } from "../domain/money/micros.js";

/** Money that moved between a customer and the account: a payment received, or a refund sent through a provider. */
export type CollectionKind = "PAYMENT" | "REFUND";

/** One payment or refund of an invoice, as its `n`-th logged change recorded it, dated when the money moved (`at`). */
export interface CollectionEntry {
  accountId: string;
  invoiceId: string;
  /** The invoice change that made it: one entry per change however often the change is applied. */
  n: number;
  customerId: string;
  currency: string;
  kind: CollectionKind;
  at: Date;
  /** Positive: the payment's amount, or what the refund sends back. */
  micros: Micros;
}

type EntryDoc = Omit<CollectionEntry, "micros"> & { _id: string; micros: number };

/**
 * The collections ledger: insert-only, one entry per PAYMENT change and per credit note refunded through a payment
 * provider, written by the invoice's life (services/invoices/report-ledgers.ts) before the invoice takes the change,
 * keyed `<invoice>:<n>` so a repeat is a no-op. The collections report sums a window of it in the database.
 */
export function createCollectionEntryRepository(db: Db) {
  const entries = db.collection<EntryDoc>("collectionEntries");

  return {
    async ensureIndexes() {
      // GET /reports/collections: an account's entries in one currency within a window.
      await entries.createIndex({ accountId: 1, currency: 1, at: 1 });
    },

    /** Writes the entry once: false when it was already written. */
    async record(entry: CollectionEntry): Promise<boolean> {
      return wonInsert(entries.insertOne({ ...entry, _id: `${entry.invoiceId}:${entry.n}` }));
    },

    /** The payments and the refunds in `currency` dated in [from, to), each summed by the database. */
    async sums(accountId: string, currency: string, from: Date, to: Date): Promise<Record<CollectionKind, Micros>> {
      const rows = await entries
        .aggregate<{ _id: CollectionKind; micros: number }>([
          { $match: { accountId, currency, at: { $gte: from, $lt: to } } },
          { $group: { _id: "$kind", micros: { $sum: "$micros" } } },
        ])
        .toArray();
      const sumOf = (kind: CollectionKind) => asMicros(rows.find(({ _id }) => _id === kind)?.micros ?? 0);
      return { PAYMENT: sumOf("PAYMENT"), REFUND: sumOf("REFUND") };
    },
  };
}
