import { assertLegalChange } from "../../domain/invoices/status.js";
import type { StoredInvoice, StoredPricing } from "../../repositories/invoices.js";
import type { CallScope } from "../call-scope.js";
import { collectNow } from "../collection/dunning.js";
import { changeInvoice, changeInvoices, type InvoiceChangeRequest, readInvoice } from "./changes.js";

/**
 * Finalizes a draft and gives it its number (see changes.ts), issued at `at`: with the lines and totals `price`
 * gives (the billing engine's final pricing, credits applied, due `at` plus the payment terms), else as they stand.
 * 409 when it is no longer a draft, unless `ifDraft` (a billing run, which finds it finalized by a concurrent call:
 * nothing to do).
 */
export async function finalizeInvoice(
  call: CallScope,
  invoiceId: string,
  {
    at,
    ifDraft = false,
    price,
    known,
  }: {
    at: Date;
    ifDraft?: boolean;
    price?: (draft: StoredInvoice) => Promise<StoredPricing>;
    /** The draft as its maker has just stored it (see changeInvoice). */
    known?: StoredInvoice;
  },
): Promise<StoredInvoice> {
  const finalized = await changeInvoice(call, invoiceId, finalization({ at, ifDraft, price }), known);
  // A call's finalization charges at once; a billing run's is charged by the collection run after it.
  if (!ifDraft) {
    await collectNow(call, invoiceId, at);
    return (await readInvoice(call, invoiceId)) ?? finalized;
  }
  return finalized;
}

/**
 * The FINALIZE change of a draft issued at `at` (see finalizeInvoice), as changeInvoice asks for it: nothing when
 * `ifDraft` and it is no longer a draft.
 */
const finalization =
  ({ at, ifDraft, price }: { at: Date; ifDraft: boolean; price?: (draft: StoredInvoice) => Promise<StoredPricing> }) =>
  async (current: StoredInvoice): Promise<InvoiceChangeRequest | undefined> => {
    const { status } = current.life;
    if (ifDraft && status !== "DRAFT") return undefined;
    assertLegalChange(status, "FINALIZE");
    const pricedNow = price ? await price(current) : current.life.priced;
    // Never due before its issue: a draft kept as it stands (its cycle gone) has the due date it was priced with.
    const priced = pricedNow.dueDate && pricedNow.dueDate < at ? { ...pricedNow, dueDate: at } : pricedNow;
    return { kind: "FINALIZE", at, loggedAt: new Date(), totalMicros: priced.amount, priced };
  };

/**
 * Finalizes drafts a billing run has just stored, as they stand, issued at `at` (finalizeInvoice with `ifDraft`, as
 * runs call it), together: changeInvoices. Each invoice as it ends, by id.
 */
export function finalizeNewInvoices(call: CallScope, drafts: StoredInvoice[], at: Date) {
  return changeInvoices(call, drafts, finalization({ at, ifDraft: true }));
}
