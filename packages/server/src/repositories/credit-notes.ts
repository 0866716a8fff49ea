import type { CreditNote } from "@billing/shared";
import type { Db, Filter } from "mongodb";
import { changedSince } from "../db/changed-since.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { canonicalId, toObjectId } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { type CreditNoteDoc, toCreditNote } from "../presenters/stored-credit-notes.js";

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
      // The webhook sweep's reading of recent credit notes.
      await notes.createIndex({ createdAt: 1 });
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

    /** Credit notes created at or after `since`, across accounts, oldest first: for the webhook sweep. */
    createdSince(since: Date, limit: number) {
      return changedSince(notes, "createdAt", since, limit, toCreditNote);
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
