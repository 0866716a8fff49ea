import type { InvoiceChange, ProviderRefundShare } from "../invoices/life.js";
import { asMicros, type Micros, ZERO_MICROS } from "../money/micros.js";

/**
 * What each payment the provider collected on an invoice can still be refunded through it: collected − refunded so
 * far, in the order the payments were recorded; payments with nothing left are left out.
 */
export function refundableShares(
  collected: ReadonlyMap<string, number>,
  refunded: ReadonlyMap<string, number>,
): ProviderRefundShare[] {
  const shares: ProviderRefundShare[] = [];
  for (const [paymentId, micros] of collected) {
    const left = micros - (refunded.get(paymentId) ?? 0);
    if (left > 0) shares.push({ paymentId, micros: asMicros(left) });
  }
  return shares;
}

/**
 * Splits a refund over the payments' refundable shares, oldest payment first (each refunded whole before the next is
 * touched): one provider refund per share. The caller has checked `amountMicros` ≤ their sum.
 * Example: 30.00 and 45.50 collected, 10.00 of the first refunded → 20.00 + 45.50 refundable; 50.00 → 20.00 of the
 * first and 30.00 of the second.
 */
export function allocateRefund(
  refundable: readonly ProviderRefundShare[],
  amountMicros: Micros,
): ProviderRefundShare[] {
  const shares: ProviderRefundShare[] = [];
  let left: number = amountMicros;
  for (const share of refundable) {
    if (left <= 0) break;
    const micros = Math.min(left, share.micros);
    shares.push({ paymentId: share.paymentId, micros: asMicros(micros) });
    left -= micros;
  }
  return shares;
}

/**
 * A refund made at the provider itself: the provider's cumulative refunded total of a payment (Stripe's charge
 * `amount_refunded`) beyond what the invoice's log already holds for it. Our own refunds are logged before they are
 * made, so their `charge.refunded` finds nothing beyond; a re-sent event neither.
 */
export const externalRefundMicros = (providerRefundedMicros: Micros, loggedMicros: Micros): Micros =>
  asMicros(Math.max(0, providerRefundedMicros - loggedMicros));

type ProviderRefundNote = Extract<InvoiceChange<never>, { kind: "CREDIT_NOTE" }>;

/**
 * The one shape of a `PROVIDER` credit note's log change (offset and credits 0, the refund per provider payment):
 * built alike for a note asked through the API (origin API, refunded by us after it is logged) and for a refund made
 * at the provider itself (origin PROVIDER, recorded only).
 */
export function providerRefundNote(note: {
  at: Date;
  creditNoteId: string;
  reason: ProviderRefundNote["reason"];
  provider: string;
  origin: "API" | "PROVIDER";
  refunds: ProviderRefundShare[];
}): ProviderRefundNote {
  const { at, creditNoteId, reason, provider, origin, refunds } = note;
  return {
    kind: "CREDIT_NOTE",
    at,
    creditNoteId,
    offset: ZERO_MICROS,
    credits: ZERO_MICROS,
    reason,
    providerRefund: { provider, origin, refunds },
  };
}
