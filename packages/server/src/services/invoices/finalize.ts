import { assertLegalChange } from "../../domain/invoices/status.js";
import type { StoredInvoice } from "../../repositories/invoices.js";
import { changeInvoice, type InvoiceCall } from "./changes.js";

/**
 * Finalizes a draft with its lines and totals as they stand, and gives it its number (see changes.ts): 409 when it
 * is no longer a draft, unless `ifDraft` (a billing run, which finds it finalized by a concurrent call).
 */
export function finalizeInvoice(
  call: InvoiceCall,
  invoiceId: string,
  { at, ifDraft = false }: { at: Date; ifDraft?: boolean },
): Promise<StoredInvoice> {
  return changeInvoice(call, invoiceId, ({ life }) => {
    if (ifDraft && life.status !== "DRAFT") return undefined;
    assertLegalChange(life.status, "FINALIZE");
    return { kind: "FINALIZE", at, totalMicros: life.priced.amount, priced: life.priced };
  });
}
