import type { Invoice } from "@billing/shared";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { PaymentTerms } from "../../domain/billing/invoice.js";
import type { CycleLookup, PlannedInvoice } from "../../domain/billing/items.js";
import type { InvoiceDraftInMicros } from "../../domain/billing/pipeline.js";
import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import type { InvoicePlacement, StoredInvoice } from "../../repositories/invoices.js";
import type { CallScope } from "../call-scope.js";
import { finalizeNewInvoices } from "../invoices/finalize.js";
import { publishChange } from "../webhook-events.js";
import { invoiceIdFor } from "./invoice-id.js";
import { priceCycle } from "./price-cycle.js";

export { invoiceIdFor };

/** What making a planned invoice found: it was already made, or not (then `created` is its id if this call made it). */
export interface InvoiceOutcome {
  alreadyInvoiced: boolean;
  created?: string;
}

/** What a run knows when it makes an invoice: the customer's terms, its clock, and the draft period. */
export interface InvoiceMaking {
  paymentTerms: PaymentTerms;
  spendCredits: boolean;
  log: Logger;
  /** The run's `at`: the invoice is finalized at once when its draft period has passed by then. */
  at: Date;
  /** INVOICE_DRAFT_PERIOD: how long after it is due an invoice stays a draft. */
  draftMs: number;
  /** The contract's cycles as the run planned them once: late usage looks its originals up there. */
  cycles?: CycleLookup | undefined;
}

/** An invoice a run has just stored as a draft, to finalize (when `finalNow`) and announce (finishInvoice). */
export interface StoredNewInvoice {
  contract: ContractInMicros;
  invoice: Invoice;
  stored: StoredInvoice;
  finalNow: boolean;
}

/** What storing a planned invoice found (storeInvoices), and the invoice to finish when it stored one. */
export interface StoreOutcome extends InvoiceOutcome {
  toFinish?: StoredNewInvoice;
}

/** A planned invoice priced by a run (priceInvoice), to insert with others of its batch (storeInvoices). */
export interface PricedInvoice {
  contract: ContractInMicros;
  draft: InvoiceDraftInMicros;
  placement: InvoicePlacement;
  finalNow: boolean;
  /** Whether its pending payment is to close once it is stored (it was opened, or credits paid it). */
  closesPayment: boolean;
}

/**
 * Makes one invoice of a contract, once, with storeInvoices and finishInvoices. Steps, each safe to repeat after a
 * crash or alongside a concurrent run: (1) skip when the invoice exists (a draft is the drafts step's: drafts.ts) or
 * would be empty; (2) when its draft period has passed by the run's `at`, note the payment as pending and pay it from
 * credits (priceCycle); (3) insert it under its derived id, as a draft, and close the pending payment
 * (storeInvoices: a batch's invoices in one insert); (4) finalize it when its draft period has passed and the
 * contract has not changed since it was read, nor is changing (changedSinceRead; a change that checked what is
 * invoiced before step 3 may log new terms for these days after it): else, as after a crash before step 4, it stays a
 * draft that the next run finalizes, priced again from the contract then. Only the run that inserted it finalizes it
 * (step 4 is finishInvoice's: a run checks the contracts of several stored invoices together). `invoice.created`
 * carries it as step 4 left it. This is steps 1 and 2: the invoice priced, to store, unless it needs none.
 */
export async function priceInvoice(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  planned: PlannedInvoice,
  options: InvoiceMaking,
): Promise<InvoiceOutcome & { priced?: PricedInvoice }> {
  const invoiceId = invoiceIdFor(accountId, contract.id, planned.key);
  if (await repositories.invoices.get(accountId, invoiceId.toHexString())) return { alreadyInvoiced: true };
  const finalizesAt = new Date(planned.dueAt.getTime() + options.draftMs);
  const finalNow = finalizesAt <= options.at;
  let paymentOpened = false;
  const openPayment = async () => {
    paymentOpened = true;
    await repositories.billingRuns.openPayment({
      _id: invoiceId,
      accountId,
      contractId: contract.id,
      cycleKey: planned.key,
      cycleStart: planned.start,
    });
  };
  const draft = await priceCycle(repositories, accountId, contract, planned, {
    paymentTerms: options.paymentTerms,
    issuedAt: options.at,
    lateUsage: { invoiceId: invoiceId.toHexString(), at: options.at, log: options.log, cycles: options.cycles },
    credits: finalNow
      ? {
          debit: {
            invoiceId: invoiceId.toHexString(),
            spend: options.spendCredits,
            beforeDebit: openPayment,
            log: options.log,
          },
        }
      : "none",
  });
  // Nothing to bill this cycle (e.g. a one-time product after its first cycle): no invoice.
  if (draft.lineItems.length === 0) return { alreadyInvoiced: false };
  const meterKeys = [...new Set(planned.charges.flatMap(({ item }) => item.meters))];
  return {
    alreadyInvoiced: false,
    priced: {
      contract,
      draft,
      placement: { id: invoiceId, cycleKey: planned.key, meterKeys, finalizesAt, pricedAt: options.at },
      finalNow,
      closesPayment: paymentOpened || draft.revenueBreakdown.creditsUsed > 0,
    },
  };
}

/**
 * Step 3 for a batch's priced invoices: inserted together (one command), each pending payment closed once its
 * invoice is stored. Each invoice's outcome in order, or the error that stopped it alone (its debit, if any, stays
 * open for payment-repair.ts).
 */
export async function storeInvoices(
  repositories: Repositories,
  accountId: string,
  batch: PricedInvoice[],
): Promise<(StoreOutcome | { error: unknown })[]> {
  const inserted = await repositories.invoices.insertMany(accountId, batch);
  const outcomes: (StoreOutcome | { error: unknown })[] = [];
  for (const [index, outcome] of inserted.entries()) {
    const { contract, placement, finalNow, closesPayment } = batch[index] as PricedInvoice;
    if ("error" in outcome) {
      outcomes.push(outcome);
      continue;
    }
    try {
      if (closesPayment) await repositories.billingRuns.closePayment(placement.id);
    } catch (error) {
      outcomes.push({ error });
      continue;
    }
    const { created, invoice, stored } = outcome;
    outcomes.push(
      created
        ? { alreadyInvoiced: false, created: invoice.id, toFinish: { contract, invoice, stored, finalNow } }
        : { alreadyInvoiced: true },
    );
  }
  return outcomes;
}

/**
 * Step 4 of storeInvoice's steps, for invoices a run stored: those whose draft period has passed and whose contract
 * has not changed since it was read, nor is changing (`changed`: changedSinceRead), finalized together
 * (finalizeNewInvoices). Each invoice as this step left it, by id: announce each with announceCreated.
 */
export async function finishInvoices(
  call: CallScope,
  newInvoices: StoredNewInvoice[],
  { at, changed }: { at: Date; changed: Set<string> },
): Promise<Map<string, Invoice>> {
  const toFinalize = newInvoices.filter(({ finalNow, contract }) => finalNow && !changed.has(contract.id));
  const finalized = await finalizeNewInvoices(
    call,
    toFinalize.map(({ stored }) => stored),
    at,
  );
  return new Map(
    newInvoices.map(({ invoice }) => [invoice.id, finalized.get(invoice.id)?.invoice ?? invoice] as const),
  );
}

/** `invoice.created`, with the invoice as finishInvoices left it. */
export const announceCreated = ({ repositories, accountId, log }: CallScope, invoice: Invoice) =>
  publishChange(repositories, accountId, log, { type: "invoice.created", data: invoice });
