import type { InvoiceChange } from "../invoices/life.js";
import { asMicros, type Micros } from "../money/micros.js";

/**
 * The money an invoice change moved between the customer and the account, dated when it moved: a payment its amount
 * at the date it was paid (`date`, which may be before it was recorded); a credit note refunded through a payment
 * provider what it refunds, when it was made. Anything else moves no money (an OFFSET note lowers a debt, a CREDITS
 * note gives credits, a void cancels what was owed): undefined.
 */
export function collectionOf(
  change: InvoiceChange<unknown>,
): { kind: "PAYMENT" | "REFUND"; at: Date; micros: Micros } | undefined {
  if (change.kind === "PAYMENT") return { kind: "PAYMENT", at: change.payment.date, micros: change.payment.amount };
  if (change.kind !== "CREDIT_NOTE" || !change.providerRefund) return undefined;
  const micros = change.providerRefund.refunds.reduce((sum, refund) => sum + refund.micros, 0);
  return micros > 0 ? { kind: "REFUND", at: change.at, micros: asMicros(micros) } : undefined;
}
