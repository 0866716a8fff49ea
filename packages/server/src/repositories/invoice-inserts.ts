import { type Invoice, invoiceDraft } from "@billing/shared";
import type { Collection, Filter } from "mongodb";
import type { Counter } from "prom-client";
import { billingNow } from "../billing-clock.js";
import { isDuplicateKeyError, wonInserts } from "../db/duplicate-key.js";
import type { LastOfEach } from "../db/last-of-each.js";
import type { InvoiceDraftInMicros } from "../domain/billing/pipeline.js";
import { presentInvoiceDraft } from "../presenters/invoices.js";
import {
  type InvoiceDoc,
  lifeOf,
  toInvoice as presentStoredInvoice,
  type StoredInvoiceLife,
} from "../presenters/stored-invoices.js";
import { type InvoicePlacement, newInvoiceDoc } from "../presenters/stored-new-invoices.js";
import type { Hooks } from "./hooks.js";

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

/** One invoice of a batch to insert (insertMany): its draft and where it goes. */
export interface NewInvoice {
  draft: InvoiceDraftInMicros;
  placement: InvoicePlacement;
}

/** The invoice as the API shows it, its `overdue` as of the account's billing now (a test account's clock). */
export const toInvoice = (doc: InvoiceDoc): Invoice => presentStoredInvoice(doc, billingNow(doc.accountId));

export const toStored = (doc: InvoiceDoc): StoredInvoice => ({
  invoice: toInvoice(doc),
  life: lifeOf(doc),
  cycleKey: doc.cycleKey,
});

/** Each failed attempt means another invoice took the place: only a long burst of concurrent inserts gets here. */
const MAX_SEQ_ATTEMPTS = 100;

/**
 * New invoices, one at a time or a billing batch's in one command. Each is idempotent per (contract, cycleKey): when
 * that invoice exists, nothing is written and the existing one comes back with `created: false`. Each takes the next
 * place in the account's sequence, decided by the unique index on it: an insert that finds its place taken (a
 * concurrent insert) takes the next one. Drafts are validated here, so no caller can store amounts the money rule
 * refuses. `created` counts the invoices stored (the service's `billing_invoices_created_total`).
 */
export function invoiceInserts(invoices: Collection<InvoiceDoc>, hooks: Hooks, created: Counter) {
  const lastSeq = async (accountId: string) =>
    (await invoices.findOne({ accountId }, { sort: { seq: -1 }, projection: { seq: 1 } }))?.seq ?? 0;

  const admit = async ({ draft }: NewInvoice) => {
    invoiceDraft.parse(presentInvoiceDraft(draft));
    await hooks("invoices.insert", draft.contractId);
  };

  const stored = (doc: InvoiceDoc): InsertedInvoice => {
    created.inc();
    return { invoice: toInvoice(doc), created: true, stored: toStored(doc) };
  };

  /** Inserts one admitted invoice, a place after another until one is free, or finds it stored. */
  async function placeOne(
    accountId: string,
    { draft, placement }: NewInvoice,
    guesses?: LastOfEach,
  ): Promise<InsertedInvoice> {
    for (let attempt = 1; attempt <= MAX_SEQ_ATTEMPTS; attempt += 1) {
      // The first attempt trusts the last place the caller gave in the account (a wrong guess fails the insert,
      // and the next attempt reads): a pass inserting invoice after invoice reads the sequence once.
      const guess = attempt === 1 ? guesses?.get(accountId) : undefined;
      const seq = (guess ?? (await lastSeq(accountId))) + 1;
      const doc = newInvoiceDoc(accountId, draft, placement, seq);
      try {
        await invoices.insertOne(doc);
        guesses?.remember(accountId, seq);
        return stored(doc);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const existing = await invoices.findOne({
          accountId,
          contractId: doc.contractId,
          cycleKey: placement.cycleKey,
        } as Filter<InvoiceDoc>);
        if (existing) return { invoice: toInvoice(existing), created: false, stored: toStored(existing) };
      }
    }
    throw new Error(`no free place in the account's invoice sequence after ${MAX_SEQ_ATTEMPTS} attempts`);
  }

  return {
    /** For the billing engine, which derives `placement.id` from the contract and the cycle's key. */
    async insert(
      accountId: string,
      draft: InvoiceDraftInMicros,
      placement: InvoicePlacement,
      /** The places given before by the caller's work (a billing pass): the first attempt's guess. */
      guesses?: LastOfEach,
    ): Promise<InsertedInvoice> {
      await admit({ draft, placement });
      return placeOne(accountId, { draft, placement }, guesses);
    },

    /**
     * A billing batch's invoices in one unordered insert, at the places after the last one given (each decided by its
     * unique inserts, as one insert decides it); one that loses a place or finds its invoice stored is then inserted
     * alone (placeOne). Each invoice's outcome in order, or the error that stopped it alone (a draft refused, a
     * failed insert): the others are stored whatever one's fate.
     */
    async insertMany(
      accountId: string,
      batch: NewInvoice[],
      guesses?: LastOfEach,
    ): Promise<(InsertedInvoice | { error: unknown })[]> {
      const outcomes: (InsertedInvoice | { error: unknown })[] = [];
      const admitted: { index: number; doc: InvoiceDoc }[] = [];
      let seq: number | undefined;
      for (const [index, entry] of batch.entries()) {
        try {
          await admit(entry);
        } catch (error) {
          outcomes[index] = { error };
          continue;
        }
        seq = (seq ?? guesses?.get(accountId) ?? (await lastSeq(accountId))) + 1;
        admitted.push({ index, doc: newInvoiceDoc(accountId, entry.draft, entry.placement, seq) });
      }
      if (admitted.length === 0) return outcomes;
      const docs = admitted.map(({ doc }) => doc);
      let won: Set<number>;
      try {
        won = await wonInserts(invoices.insertMany(docs, { ordered: false }), docs.length);
      } catch (error) {
        // Not only lost races: what the insert stored is unknown, so each invoice fails as if its own insert had.
        for (const { index } of admitted) outcomes[index] = { error };
        return outcomes;
      }
      for (const [position, { index, doc }] of admitted.entries()) {
        if (!won.has(position)) continue;
        outcomes[index] = stored(doc);
        guesses?.remember(accountId, Math.max(doc.seq, guesses.get(accountId) ?? 0));
      }
      for (const [position, { index }] of admitted.entries()) {
        if (won.has(position)) continue;
        try {
          outcomes[index] = await placeOne(accountId, batch[index] as NewInvoice, guesses);
        } catch (error) {
          outcomes[index] = { error };
        }
      }
      return outcomes;
    },
  };
}
