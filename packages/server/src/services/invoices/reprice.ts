import type { InvoiceDraftInMicros } from "../../domain/billing/pipeline.js";
import { isLegalChange } from "../../domain/invoices/status.js";
import type { StoredInvoice } from "../../repositories/invoices.js";
import type { CallScope } from "../call-scope.js";
import { readInvoice } from "./changes.js";

/**
 * Prices a draft again, as priced by a run at `at`: the REPRICE of the invoice's machine (domain/invoices/status.ts).
 * The invoice is read with its logged changes applied (a finalization that stopped before it took effect makes it a
 * draft no more); while the machine lets it be repriced, it takes the lines and totals `price` gives (none: it keeps
 * its own). A REPRICE is no entry of the log: it is written only while the draft has taken no logged change.
 */
export async function repriceInvoice(
  call: CallScope,
  invoiceId: string,
  at: Date,
  price: (draft: StoredInvoice) => Promise<InvoiceDraftInMicros | undefined>,
): Promise<void> {
  const draft = await readInvoice(call, invoiceId);
  if (!draft || !isLegalChange(draft.life.status, "REPRICE")) return;
  const priced = await price(draft);
  if (priced) await call.repositories.invoices.reprice(call.accountId, draft.invoice, priced, at);
}
