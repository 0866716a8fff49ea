import type { InvoiceAdjustment } from "@billing/shared";
import { notFound } from "../../domain/errors.js";
import { correctionAdjustment, lateUsageAdjustments } from "../../presenters/invoice-adjustments.js";
import type { CallScope } from "../call-scope.js";
import { readInvoice } from "./changes.js";

/** The most later invoices, and credit notes, one look at an invoice's adjustments reads. */
const MAX_READ = 100;

/**
 * `GET /invoices/{invoiceId}/adjustments` (late usage, issue 45): the LATE_USAGE lines of the contract's FINALIZED
 * invoices since this one was finalized that adjust it, then the USAGE_CORRECTION credit notes runs made on it.
 * Bounded: 100 later invoices (three years of monthly ones beyond any window) and an invoice's 100 credit notes.
 */
export async function adjustmentsOf(call: CallScope, invoiceId: string): Promise<InvoiceAdjustment[]> {
  const current = await readInvoice(call, invoiceId);
  if (!current) throw notFound("Invoice");
  const { invoice } = current;
  const { repositories, accountId } = call;
  if (!invoice.finalizedAt) return [];
  const [later, notes] = await Promise.all([
    repositories.invoices.adjustable(accountId, invoice.contractId, new Date(invoice.finalizedAt), MAX_READ, {
      drafts: false,
    }),
    repositories.creditNotes.list(accountId, { invoiceId: invoice.id, limit: MAX_READ }),
  ]);
  const lines = later
    .filter((stored) => stored.life.status === "FINALIZED" && stored.invoice.id !== invoice.id)
    .flatMap((stored) => lateUsageAdjustments(stored.invoice, invoice.id));
  const corrections = notes.items.flatMap((note) => correctionAdjustment(note) ?? []);
  return [...lines, ...corrections];
}
