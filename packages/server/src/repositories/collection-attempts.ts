import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";

export type AttemptStatus = "PENDING" | "SUCCEEDED" | "FAILED";

/**
 * One charge of an invoice: `<invoiceId>/<number>`, inserted by whoever makes that attempt (a unique insert decides
 * it between instances), then its outcome written by that maker or by the provider's webhook. The provider is called
 * with `idempotencyKey`, derived from the invoice and number, so the attempt made again after a crash is the same.
 */
export interface CollectionAttemptDoc {
  _id: string;
  accountId: string;
  invoiceId: string;
  number: number;
  idempotencyKey: string;
  status: AttemptStatus;
  providerPaymentId?: string;
  failureMessage?: string;
  createdAt: Date;
  updatedAt: Date;
}

export const attemptIdOf = (invoiceId: string, number: number) => `${invoiceId}/${number}`;

export function createCollectionAttemptRepository(db: Db) {
  const attempts = db.collection<CollectionAttemptDoc>("collection_attempts");
  return {
    async ensureIndexes() {
      // An invoice's attempts, latest first.
      await attempts.createIndex({ accountId: 1, invoiceId: 1, number: -1 });
    },

    /** Takes attempt `number` of the invoice: false when it was already taken (by another instance, or before). */
    claim: (attempt: CollectionAttemptDoc) => wonInsert(attempts.insertOne(attempt)),

    /** Attempt `number` of the invoice; the filter carries the shard key's fields, so a cluster routes it. */
    get: (accountId: string, invoiceId: string, number: number) =>
      attempts.findOne({ _id: attemptIdOf(invoiceId, number), accountId, invoiceId }),

    latest: (accountId: string, invoiceId: string) =>
      attempts.findOne({ accountId, invoiceId }, { sort: { number: -1 } }),

    /** The invoice's attempts, latest first (an invoice is charged a handful of times: retries are few). */
    ofInvoice: (accountId: string, invoiceId: string) =>
      attempts.find({ accountId, invoiceId }).sort({ number: -1 }).limit(100).toArray(),

    /** Writes an attempt's outcome (its maker, or the provider's webhook: the provider's word is the truth). */
    async settle(
      _id: string,
      outcome: { status: AttemptStatus; providerPaymentId?: string; failureMessage?: string },
      now: Date,
    ) {
      await attempts.updateOne({ _id }, { $set: { ...outcome, updatedAt: now } });
    },
  };
}
export type CollectionAttemptRepository = ReturnType<typeof createCollectionAttemptRepository>;
