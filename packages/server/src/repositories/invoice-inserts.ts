import type { Invoice } from "@billing/shared";
import type { Collection, Filter } from "mongodb";
import type { Counter } from "prom-client";
import { billingNow } from "../billing-clock.js";
import { wonInserts } from "../db/duplicate-key.js";
import type { LastOfEach } from "../db/last-of-each.js";
import type { InvoiceDraftInMicros } from "../domain/billing/pipeline.js";
import {
  type InvoiceDoc,
  lifeOf,
  toInvoice as presentStoredInvoice,
  type StoredInvoiceLife,
} from "../presenters/stored-invoices.js";
import { type InvoicePlacement, newInvoiceDoc } from "../presenters/stored-new-invoices.js";
import type { Hooks } from "./hooks.js";
import type { InvoiceContracts } from "./invoice-contracts.js";
import type { InvoicePlaces } from "./invoice-places.js";

/** An invoice as stored: as the API shows it, its life (for the change that comes next), and its cycle's key. */
export interface StoredInvoice {
  invoice: Invoice;
  life: StoredInvoiceLife;
  cycleKey: string;
}

/** What inserting a new invoice found: it stored it (`created`), or the invoice of that contract and cycle exists. */
export interface InsertedInvoice {
  invoice: Invoice;
  created: boolean;
  stored: StoredInvoice;
}

/** What inserting one invoice of a batch came to: its outcome, or the error that stopped it alone. */
export type InsertOutcome = InsertedInvoice | { error: unknown };

/** One invoice of a batch to insert (insertMany): its draft and where it goes. */
export interface NewInvoice {
  draft: InvoiceDraftInMicros;
  placement: InvoicePlacement;
}

/** The invoice as the API shows it, its `overdue` as of the account's billing now (a test account's clock). */
export const toInvoice = (doc: InvoiceDoc): Invoice => presentStoredInvoice(doc, billingNow(doc.accountId));

/**
 * The document each StoredInvoice was presented from, while the StoredInvoice lives: a write of its life (writeLives)
 * presents the invoice it leaves from it, without reading the invoice back.
 */
const docs = new WeakMap<StoredInvoice, InvoiceDoc>();

/** The document `stored` was presented from (undefined for one made otherwise, e.g. spread into a new object). */
export const docOf = (stored: StoredInvoice) => docs.get(stored);

export const toStored = (doc: InvoiceDoc): StoredInvoice => {
  const stored = { invoice: toInvoice(doc), life: lifeOf(doc), cycleKey: doc.cycleKey };
  docs.set(stored, doc);
  return stored;
};

/**
 * New invoices, one at a time or a billing batch's in one command. Each is idempotent per (contract, cycleKey): when
 * that invoice exists, nothing is written and the existing one comes back with `created: false`. Each takes the next
 * place in the account's sequence, claimed first (invoice-places.ts: one insert for the batch's places). Drafts are
 * validated here, so no caller can store amounts the money rule refuses. `created` counts the invoices stored (the
 * service's `billing_invoices_created_total`).
 */
export function invoiceInserts(
  invoices: Collection<InvoiceDoc>,
  places: InvoicePlaces,
  contracts: InvoiceContracts,
  hooks: Hooks,
  created: Counter,
  /** Throws for a draft the money rule refuses (the invoices repository's check: checkDraft). */
  checkDraft: (draft: InvoiceDraftInMicros) => void,
) {
  const admit = async ({ draft }: NewInvoice) => {
    checkDraft(draft);
    await hooks("invoices.insert", draft.contractId);
  };

  /** An invoice as its insert answers it: presented once (the stored one is the same invoice). */
  const inserted = (doc: InvoiceDoc, created: boolean): InsertedInvoice => {
    const stored = toStored(doc);
    return { invoice: stored.invoice, created, stored };
  };

  const stored = (doc: InvoiceDoc): InsertedInvoice => {
    created.inc();
    return inserted(doc, true);
  };

  /** The invoice of this contract and cycle, stored by another insert. */
  const existing = async (doc: InvoiceDoc): Promise<InsertedInvoice | undefined> => {
    const found = await invoices.findOne({
      accountId: doc.accountId,
      contractId: doc.contractId,
      cycleKey: doc.cycleKey,
    } as Filter<InvoiceDoc>);
    return found ? inserted(found, false) : undefined;
  };

  /**
   * The admitted invoices at their claimed places, in one unordered insert: each stored, or found stored (its
   * contract's cycle or its id taken: the same invoice), or the error that stopped it.
   */
  async function place(accountId: string, batch: NewInvoice[], guesses?: LastOfEach): Promise<InsertOutcome[]> {
    const seqs = await places.claim(
      accountId,
      batch.map(({ placement }) => placement.id),
      guesses,
    );
    const docs = batch.map(({ draft, placement }, index) =>
      newInvoiceDoc(accountId, draft, placement, seqs[index] as number),
    );
    let won: Set<number>;
    try {
      await contracts.note(docs);
      won = await wonInserts(invoices.insertMany(docs, { ordered: false }), docs.length);
    } catch (error) {
      // Not only lost races: what the insert stored is unknown, so each invoice fails as if its own insert had.
      return docs.map(() => ({ error }));
    }
    const outcomes: InsertOutcome[] = [];
    for (const [index, doc] of docs.entries()) {
      if (won.has(index)) {
        outcomes.push(stored(doc));
        continue;
      }
      const found = await existing(doc);
      outcomes.push(
        found ?? { error: new Error(`invoice ${doc._id.toHexString()} lost its insert and is not stored`) },
      );
    }
    return outcomes;
  }

  return {
    /** For the billing engine, which derives `placement.id` from the contract and the cycle's key. */
    async insert(
      accountId: string,
      draft: InvoiceDraftInMicros,
      placement: InvoicePlacement,
      /** The first claim's guess of the last place given (default: the last place this process gave). */
      guesses?: LastOfEach,
    ): Promise<InsertedInvoice> {
      await admit({ draft, placement });
      const [outcome] = await place(accountId, [{ draft, placement }], guesses);
      if (!outcome || "error" in outcome) throw outcome?.error;
      return outcome;
    },

    /**
     * A billing batch's invoices in one unordered insert after one insert of their places. Each invoice's outcome in
     * order, or the error that stopped it alone (a draft refused, a failed insert): the others are stored whatever
     * one's fate.
     */
    async insertMany(accountId: string, batch: NewInvoice[], guesses?: LastOfEach): Promise<InsertOutcome[]> {
      const outcomes: InsertOutcome[] = [];
      const admitted: number[] = [];
      for (const [index, entry] of batch.entries()) {
        try {
          await admit(entry);
          admitted.push(index);
        } catch (error) {
          outcomes[index] = { error };
        }
      }
      if (admitted.length === 0) return outcomes;
      const placed = await place(
        accountId,
        admitted.map((index) => batch[index] as NewInvoice),
        guesses,
      );
      for (const [position, index] of admitted.entries()) outcomes[index] = placed[position] as InsertedInvoice;
      return outcomes;
    },
  };
}
