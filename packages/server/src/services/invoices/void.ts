import type { Invoice, InvoiceVoid } from "@billing/shared";
import { assertVoidable, historyOf } from "../../domain/invoices/settlement.js";
import { returnInvoiceCredits } from "../credit-ledger.js";
import { changeInvoice, type InvoiceCall, readInvoice } from "./changes.js";

/** Gives the voided invoice's credits back to their grants (each once, however often this runs). */
const returnCredits = (call: InvoiceCall, invoice: Invoice) =>
  returnInvoiceCredits(call, invoice.customerId, invoice.id);

/**
 * Voids a DRAFT, or a FINALIZED invoice with nothing paid (one VOID change of its log, which decides it against
 * concurrent payments and credit notes), then gives the credits it used back to their grants. A void cut short after
 * its change (a crash) is completed by the next void request, which then answers 409: the invoice is VOIDED.
 */
export async function voidInvoice(call: InvoiceCall, { invoiceId, reason }: InvoiceVoid, now: Date): Promise<Invoice> {
  try {
    const stored = await changeInvoice(call, invoiceId, async ({ invoice, life }) => {
      assertVoidable(life, historyOf(await call.repositories.invoiceChanges.after(call.accountId, invoice.id, 0)));
      return { kind: "VOID", at: now, ...(reason !== undefined && { reason }) };
    });
    await returnCredits(call, stored.invoice);
    return stored.invoice;
  } catch (error) {
    const current = await readInvoice(call, invoiceId);
    if (current?.life.status === "VOIDED") await returnCredits(call, current.invoice);
    throw error;
  }
}
