import type { DunningPolicy, DunningStep } from "@billing/shared";
import type { CallScope } from "../call-scope.js";
import { readInvoice } from "../invoices/changes.js";
import { publishStep } from "./charge.js";

/**
 * The dunning policy's final action after the last step, once per invoice (its step is taken by a unique insert):
 * `MARK_UNCOLLECTIBLE` announces `invoice.marked_uncollectible`; `NONE` does nothing.
 * TODO(issue 46): `PAUSE_CONTRACTS` pauses the customer's contracts; the invoice's `Uncollectible` payment state.
 */
export async function applyFinalAction(
  call: CallScope,
  action: DunningPolicy["finalAction"],
  invoiceId: string,
  step: DunningStep,
) {
  if (action !== "MARK_UNCOLLECTIBLE") return;
  const invoice = (await readInvoice(call, invoiceId))?.invoice;
  if (invoice) await publishStep(call, "invoice.marked_uncollectible", invoice, step);
}
