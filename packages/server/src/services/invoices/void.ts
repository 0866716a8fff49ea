import type { Invoice, InvoiceVoid } from "@billing/shared";
import { assertVoidable, historyOf } from "../../domain/invoices/settlement.js";
import type { CallScope } from "../call-scope.js";
import { changeInvoice } from "./changes.js";

/**
 * Voids a DRAFT, or a FINALIZED invoice with nothing paid: one VOID change of its log, which decides it against
 * concurrent payments, finalizations and credit notes. Its effect gives the credits the invoice used back to their
 * grants (effects.ts): a void cut short after its change (a crash) is completed by the next read of the invoice.
 */
export async function voidInvoice(call: CallScope, { invoiceId, reason }: InvoiceVoid, now: Date): Promise<Invoice> {
  const stored = await changeInvoice(call, invoiceId, async ({ invoice, life }) => {
    const changes = await call.repositories.invoiceChanges.after(call.accountId, invoice.id, 0);
    assertVoidable(life, historyOf(changes), invoice.currency);
    return { kind: "VOID", at: now, ...(reason !== undefined && { reason }) };
  });
  return stored.invoice;
}
