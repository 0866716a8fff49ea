import { ObjectId } from "mongodb";
import { externalRefundMicros, providerRefundNote } from "../../domain/collection/refunds.js";
import { historyOf } from "../../domain/invoices/settlement.js";
import { asMicros, type Micros } from "../../domain/money/micros.js";
import type { CallScope } from "../call-scope.js";
import { changeInvoice } from "../invoices/changes.js";
import { publishChange } from "../webhook-events.js";
import { refundedOfPayment } from "./refunds.js";

/**
 * A provider's word that a payment of the invoice is refunded `refundedMicros` in all (Stripe's `charge.refunded`,
 * `amount_refunded`): what is beyond what the invoice's log already holds for that payment was refunded at the
 * provider itself (its dashboard) and is recorded as a `PROVIDER` credit note of origin PROVIDER, decided against the
 * log (so a re-sent event, or the event of our own refund, logged before it was made, records nothing).
 */
export async function recordExternalRefund(
  call: CallScope,
  invoiceId: string,
  { provider, paymentId, refundedMicros }: { provider: string; paymentId: string; refundedMicros: Micros },
  now: Date,
) {
  const creditNoteId = new ObjectId().toHexString();
  let logged = false;
  await changeInvoice(call, invoiceId, async ({ invoice, life }) => {
    const history = historyOf(await call.repositories.invoiceChanges.after(call.accountId, invoice.id, 0));
    if (life.status !== "FINALIZED" || !history.paidByTransaction.has(paymentId)) return undefined;
    const ours = await refundedOfPayment(call, invoice.id, paymentId, history.providerRefunded.get(paymentId) ?? 0);
    const micros = externalRefundMicros(refundedMicros, ours);
    if (micros === 0) return undefined;
    logged = true;
    return providerRefundNote({
      at: now,
      creditNoteId,
      reason: "OTHER",
      provider,
      origin: "PROVIDER",
      refunds: [{ paymentId, micros: asMicros(micros) }],
    });
  });
  if (!logged) return;
  const note = await call.repositories.creditNotes.get(call.accountId, creditNoteId);
  if (note)
    await publishChange(call.repositories, call.accountId, call.log, { type: "credit_note.refunded", data: note });
}
