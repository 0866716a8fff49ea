import type { CollectionAttempt, Invoice } from "@billing/shared";
import { conflict, notFound } from "../../domain/errors.js";
import type { CallScope } from "../call-scope.js";
import { readInvoice } from "../invoices/changes.js";
import { attemptCharge, chargeabilityOf, presentAttempt } from "./charge.js";

/**
 * POST /invoices/{invoiceId}/collect: one charge now, whatever `autoCollect` says (a new attempt, or the one left
 * pending made again with its key). 409 naming why when it cannot be charged.
 */
export async function collectOnRequest(
  call: CallScope,
  invoiceId: string,
): Promise<{ invoice: Invoice; attempt?: CollectionAttempt }> {
  const ready = await chargeabilityOf(call, invoiceId, true);
  if (!ready.chargeable) {
    if (ready.reason === "no such invoice") throw notFound("Invoice");
    throw conflict(`The invoice cannot be charged: ${ready.reason}`);
  }
  const latest = await call.repositories.collectionAttempts.latest(call.accountId, ready.invoice.id);
  const number = latest?.status === "PENDING" ? latest.number : (latest?.number ?? 0) + 1;
  const attempt = await attemptCharge(call, ready, { kind: "CHARGE", day: number });
  if (attempt.status === "SUCCEEDED")
    await call.repositories.invoiceCollections.reschedule(ready.invoice.id, undefined, new Date());
  const invoice = (await readInvoice(call, ready.invoice.id))?.invoice ?? ready.invoice;
  return { invoice, attempt: presentAttempt(attempt) };
}

/** GET /invoices?dunning=active: the invoices being collected (at most 100, next look first), as they stand. */
export async function invoicesInCollection(call: CallScope): Promise<Invoice[]> {
  const invoices: Invoice[] = [];
  for (const id of await call.repositories.invoiceCollections.activeInvoiceIds(call.accountId, 100)) {
    const current = await readInvoice(call, id);
    if (current && current.invoice.status === "FINALIZED" && current.invoice.amountDue > 0)
      invoices.push(current.invoice);
  }
  return invoices;
}
