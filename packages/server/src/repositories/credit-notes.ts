import { type CreditNote, MAX_CREDIT_NOTES_PER_INVOICE } from "@billing/shared";
import type { Db, Filter } from "mongodb";
import { changedSince } from "../db/changed-since.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { canonicalId, toObjectId } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { type CreditNoteDoc, type ProviderRefundDoc, toCreditNote } from "../presenters/stored-credit-notes.js";

export type NewCreditNote = Omit<CreditNoteDoc, "createdAt">;

export interface CreditNoteListRequest extends PageRequest {
  invoiceId?: string | undefined;
  customerId?: string | undefined;
}

/**
 * Credit notes, written once their invoice's change log holds them (services/credit-notes.ts): the log decides the
 * amount, this collection keeps the document with its number for reads and lists.
 */
export function createCreditNoteRepository(db: Db) {
  const notes = db.collection<CreditNoteDoc>("credit_notes");

  return {
    async ensureIndexes() {
      // The lists, in creation order: of the account, of an invoice, of a customer, of both.
      await notes.createIndex({ accountId: 1, _id: 1 });
      await notes.createIndex({ accountId: 1, invoiceId: 1, _id: 1 });
      await notes.createIndex({ accountId: 1, customerId: 1, _id: 1 });
      await notes.createIndex({ accountId: 1, customerId: 1, invoiceId: 1, _id: 1 });
      // The webhook sweep's reading of recent credit notes, and of provider refunds ended recently.
      await notes.createIndex({ createdAt: 1 });
      await notes.createIndex({ refundSettledAt: 1 });
    },

    /** Stores the credit note once: a repeated insert (a completion after a crash) returns the stored one. */
    async insert(note: NewCreditNote, createdAt: Date): Promise<CreditNote> {
      const doc = { ...note, createdAt };
      try {
        await notes.insertOne(doc);
        return toCreditNote(doc);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const stored = await notes.findOne({ _id: note._id });
        if (!stored) throw error;
        return toCreditNote(stored);
      }
    },

    async get(accountId: string, creditNoteId: string): Promise<CreditNote | undefined> {
      const doc = await findOwned(notes, accountId, toObjectId(creditNoteId));
      return doc ? toCreditNote(doc) : undefined;
    },

    /** The invoice's credit notes (at most MAX_CREDIT_NOTES_PER_INVOICE), oldest first. */
    async ofInvoice(accountId: string, invoiceId: string): Promise<CreditNote[]> {
      const docs = await notes
        .find({ accountId, invoiceId })
        .sort({ _id: 1 })
        .limit(MAX_CREDIT_NOTES_PER_INVOICE)
        .toArray();
      return docs.map(toCreditNote);
    },

    /**
     * Records how a `PROVIDER` note's refund stands (its maker, the collection run finishing it, the provider's later
     * word); one that ended (SUCCEEDED, FAILED) is dated `refundSettledAt` for the webhook sweep.
     */
    async setProviderRefund(accountId: string, creditNoteId: string, providerRefund: ProviderRefundDoc) {
      const _id = toObjectId(creditNoteId);
      if (!_id) return undefined;
      const settled = providerRefund.status !== "PENDING" && { refundSettledAt: new Date() };
      const doc = await notes.findOneAndUpdate(
        { _id, accountId },
        { $set: { providerRefund, ...settled } },
        { returnDocument: "after" },
      );
      return doc ? toCreditNote(doc) : undefined;
    },

    /** Credit notes created at or after `since`, across accounts, oldest first: for the webhook sweep. */
    createdSince(since: Date, limit: number) {
      return changedSince(notes, "createdAt", since, limit, toCreditNote);
    },

    /** Credit notes whose provider refund ended at or after `since`, across accounts, oldest first: for the sweep. */
    refundSettledSince(since: Date, limit: number) {
      return changedSince(notes, "refundSettledAt", since, limit, toCreditNote);
    },

    /** In creation order. */
    list(accountId: string, { invoiceId, customerId, ...page }: CreditNoteListRequest) {
      const filter = {
        accountId,
        ...(customerId !== undefined && { customerId: canonicalId(customerId) }),
        ...(invoiceId !== undefined && { invoiceId: canonicalId(invoiceId) }),
      } as Filter<CreditNoteDoc>;
      return findPage(notes, filter, page, toCreditNote);
    },
  };
}
export type CreditNoteRepository = ReturnType<typeof createCreditNoteRepository>;
