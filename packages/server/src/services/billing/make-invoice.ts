import { createHash } from "node:crypto";
import type { Contract } from "@billing/shared";
import { ObjectId } from "mongodb";
import type { PlannedInvoice } from "../../domain/billing/items.js";
import { amountDueMicros, applyCredits, chargeLines, totalInvoice } from "../../domain/billing/pipeline.js";
import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { payInvoiceFromCredits } from "../credit-ledger.js";
import { finalizeInvoice } from "../invoices/finalize.js";
import { publishChange } from "../webhook-events.js";
import { invoiceBasis, type PaymentTerms, withinLimits } from "./invoice-basis.js";

/**
 * The id of a contract's invoice, derived from the contract and the invoice's key: every step of every run names
 * the same invoice, so the credit debit (keyed by invoice) happens once, and a debit left behind by a crash is found
 * again. Its bytes are a hash: it says nothing of order (lists follow the invoice's `seq`).
 */
export function invoiceIdFor(accountId: string, contractId: string, invoiceKey: string): ObjectId {
  const digest = createHash("sha256").update(`${accountId}/${contractId}/${invoiceKey}`).digest();
  return new ObjectId(digest.subarray(0, 12));
}

/** What making a planned invoice found: it was already made, or not (then `created` is its id if this call made it). */
export interface InvoiceOutcome {
  alreadyInvoiced: boolean;
  created?: string;
}

/**
 * Makes one invoice of a contract, once. Steps, each safe to repeat after a crash or alongside a concurrent run:
 * (1) skip when the invoice exists or would be empty; (2) note the payment as pending, then pay what the grants
 * that may pay it (effective and not expired at its issue time) can, in whole cents, debited once per invoice id
 * (`spendCredits: false` only picks up a debit made before); (3) insert the invoice under its derived id, carrying
 * exactly the credits debited, and close the pending payment. The invoice's lines are priced once: the credits
 * stage and the totals follow the debit.
 */
export async function makeInvoice(
  repositories: Repositories,
  accountId: string,
  contract: Contract,
  planned: PlannedInvoice,
  options: { paymentTerms: PaymentTerms; spendCredits: boolean; log: Logger },
): Promise<InvoiceOutcome> {
  const invoiceId = invoiceIdFor(accountId, contract.id, planned.key);
  const call = { repositories, accountId, log: options.log };
  const existing = await repositories.invoices.get(accountId, invoiceId.toHexString());
  if (existing) {
    // A run stopped between storing the invoice and finalizing it: this one finalizes it.
    if (existing.status === "DRAFT") await finalizeInvoice(call, existing.id, { at: new Date(), ifDraft: true });
    return { alreadyInvoiced: true };
  }
  const basis = await invoiceBasis(repositories, accountId, contract, planned, options.paymentTerms);
  const charged = chargeLines(basis);
  const unpaid = withinLimits(totalInvoice(basis, charged));
  // Nothing to bill this cycle (e.g. a one-time product after its first cycle): no invoice.
  if (unpaid.lineItems.length === 0) return { alreadyInvoiced: false };
  const available = options.spendCredits
    ? await repositories.credits.payableAt(accountId, contract.customerId, planned.dueAt)
    : 0;
  const maxMicros = Math.min(available, amountDueMicros(charged));
  if (maxMicros > 0) {
    await repositories.billingRuns.openPayment({
      _id: invoiceId,
      accountId,
      contractId: contract.id,
      cycleKey: planned.key,
      cycleStart: planned.start,
    });
  }
  const scope = { repositories, accountId, log: options.log };
  const { spentMicros } = await payInvoiceFromCredits(scope, contract.customerId, {
    invoiceId: invoiceId.toHexString(),
    contractId: contract.id,
    issuedAt: planned.dueAt,
    maxMicros,
  });
  // Credits only lower what lines ask, so the paid invoice is within the limits the unpaid one was checked against.
  const draft = spentMicros ? totalInvoice(basis, applyCredits(charged, spentMicros)) : unpaid;
  const meterKeys = [...new Set(planned.charges.flatMap(({ item }) => item.meters))];
  const { created, invoice } = await repositories.invoices.insert(accountId, draft, {
    id: invoiceId,
    cycleKey: planned.key,
    meterKeys,
  });
  if (maxMicros > 0 || spentMicros) await repositories.billingRuns.closePayment(invoiceId);
  const finalized = (await finalizeInvoice(call, invoice.id, { at: new Date(), ifDraft: true })).invoice;
  if (created) await publishChange(repositories, accountId, options.log, { type: "invoice.created", data: finalized });
  return created ? { alreadyInvoiced: false, created: invoiceId.toHexString() } : { alreadyInvoiced: true };
}
