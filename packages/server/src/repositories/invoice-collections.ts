import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import { routedById } from "../db/find-owned.js";

/**
 * An invoice being collected: made once (a unique insert by the invoice's id) when it is finalized with something
 * due, closed when nothing is left to do. `nextAt` is when its next step falls due: a hint that only says when to
 * look (each step is decided by its own unique insert, dunning-steps.ts), so a lost concurrent write of it costs a
 * look, never a step.
 */
export interface InvoiceCollectionDoc {
  _id: string;
  accountId: string;
  customerId: string;
  dueDate: Date;
  active: boolean;
  nextAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export function createInvoiceCollectionRepository(db: Db) {
  const collections = db.collection<InvoiceCollectionDoc>("invoice_collections");
  return {
    async ensureIndexes() {
      // The account's active collections whose next step has come, earliest first.
      await collections.createIndex({ accountId: 1, active: 1, nextAt: 1 });
      // The accounts with due work, across accounts: the collection worker's walk.
      await collections.createIndex({ active: 1, nextAt: 1 });
    },

    /** Starts collecting an invoice: false when it already was. */
    open: (doc: InvoiceCollectionDoc) => wonInsert(collections.insertOne(doc)),

    get: (invoiceId: string) => collections.findOne({ _id: invoiceId }),

    /** Up to `limit` active collections of the account whose next step is due by `at`. */
    dueBy: (accountId: string, at: Date, limit: number) =>
      collections
        .find({ accountId, active: true, nextAt: { $lte: at } })
        .sort({ nextAt: 1 })
        .limit(limit)
        .toArray(),

    /** Up to `limit` accounts with an active collection due by `at`. */
    async accountsDueBy(at: Date, limit: number): Promise<string[]> {
      const docs = await collections
        .find({ active: true, nextAt: { $lte: at } }, { projection: { accountId: 1 } })
        .sort({ nextAt: 1 })
        .limit(limit * 10)
        .toArray();
      return [...new Set(docs.map(({ accountId }) => accountId))].slice(0, limit);
    },

    /** The earliest next step of the account's active collections after `after` (any, when undefined). */
    async nextAfter(accountId: string, after: Date | undefined): Promise<Date | undefined> {
      const filter = after ? { accountId, active: true, nextAt: { $gt: after } } : { accountId, active: true };
      return (await collections.findOne(filter, { sort: { nextAt: 1 }, projection: { nextAt: 1 } }))?.nextAt;
    },

    /** The ids of up to `limit` invoices of the account being collected. */
    async activeInvoiceIds(accountId: string, limit: number): Promise<string[]> {
      const docs = await collections
        .find({ accountId, active: true }, { projection: { _id: 1 } })
        .sort({ nextAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(({ _id }) => _id);
    },

    /** Has the invoice looked at by the next collection run (opened when it was not being collected). */
    async wake(doc: Omit<InvoiceCollectionDoc, "active" | "nextAt" | "createdAt" | "updatedAt">, at: Date, now: Date) {
      const { _id, ...fields } = doc;
      // With the account on a sharded cluster (keyed `{ accountId: 1, _id: "hashed" }`), which refuses an upsert
      // that does not name its whole shard key; `{ _id }` alone elsewhere (routedById).
      await collections.updateOne(
        routedById(collections, { _id }, { accountId: fields.accountId }),
        { $set: { active: true, nextAt: at, updatedAt: now }, $setOnInsert: { ...fields, createdAt: now } },
        { upsert: true },
      );
    },

    async reschedule(invoiceId: string, nextAt: Date | undefined, now: Date) {
      await collections.updateOne(
        { _id: invoiceId },
        { $set: nextAt ? { nextAt, updatedAt: now } : { active: false, updatedAt: now } },
      );
    },
  };
}
export type InvoiceCollectionRepository = ReturnType<typeof createInvoiceCollectionRepository>;
