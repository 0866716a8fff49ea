import type { Db } from "mongodb";
import { datedLedger } from "../db/dated-ledger.js";
import { recordedBefore } from "../db/recorded-before.js";
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

/** An entry recorded late, as a closed month's reader adds it. */
export interface LateCollection {
  kind: CollectionKind;
  at: Date;
  micros: Micros;
  recordedAt: Date;
}

/** `recordedAt`: when it was written (real time): a closed month sums those written before its cut. */
type EntryDoc = Omit<CollectionEntry, "micros"> & { _id: string; micros: number; recordedAt?: Date };

/**
 * The collections ledger: insert-only, one entry per PAYMENT change and per credit note refunded through a payment
 * provider, written by the invoice's life (services/invoices/report-ledgers.ts) before the invoice takes the change,
 * keyed `<invoice>:<n>` so a repeat is a no-op. The collections report sums a window of it in the database.
 */
export function createCollectionEntryRepository(db: Db) {
  const entries = db.collection<EntryDoc>("collectionEntries");

  return {
    ...datedLedger<EntryDoc, CollectionEntry>(entries),

    /** The entries recorded at or after `since` and dated in [from, to): the late postings into months closed then. */
    async recordedSince(
      accountId: string,
      currency: string,
      since: Date,
      { from, to }: { from: Date; to: Date },
    ): Promise<LateCollection[]> {
      const docs = await entries
        .find(
          { accountId, currency, recordedAt: { $gte: since }, at: { $gte: from, $lt: to } },
          { projection: { kind: 1, at: 1, micros: 1, recordedAt: 1 } },
        )
        .toArray();
      return docs.map(({ kind, at, micros, recordedAt }) => ({
        kind,
        at,
        micros: asMicros(micros),
        // Found by its recordedAt: it has one.
        recordedAt: recordedAt as Date,
      }));
    },

    /**
     * The payments and the refunds in `currency` dated in [from, to), each summed by the database; only those
     * recorded before `recordedCut` when given (a month's closing).
     */
    async sums(
      accountId: string,
      currency: string,
      from: Date,
      to: Date,
      recordedCut?: Date,
    ): Promise<Record<CollectionKind, Micros>> {
      const match = { accountId, currency, at: { $gte: from, $lt: to } };
      const matches = recordedCut
        ? recordedBefore(recordedCut).map((recorded) => ({ ...match, ...recorded }))
        : [match];
      const rows = (
        await Promise.all(
          matches.map((filter) =>
            entries
              .aggregate<{ _id: CollectionKind; micros: number }>([
                { $match: filter },
                { $group: { _id: "$kind", micros: { $sum: "$micros" } } },
              ])
              .toArray(),
          ),
        )
      ).flat();
      const sumOf = (kind: CollectionKind) =>
        asMicros(rows.filter(({ _id }) => _id === kind).reduce((sum, { micros }) => sum + micros, 0));
      return { PAYMENT: sumOf("PAYMENT"), REFUND: sumOf("REFUND") };
    },
  };
}
