import type { CreditNote, Invoice, InvoiceAdjustment } from "@billing/shared";
import { sumAmounts } from "./money.js";

/**
 * What adjusted an issued invoice later (late usage, issue 45), as the API shows it: from a later invoice's
 * LATE_USAGE lines (its amounts before tax), or from a USAGE_CORRECTION credit note a billing run made.
 */

/** The adjustments a later invoice's LATE_USAGE lines made, of `originalId` only when given. */
export function lateUsageAdjustments(carrier: Invoice, originalId?: string): InvoiceAdjustment[] {
  return carrier.lineItems.flatMap((line) => {
    const { adjusts } = line;
    if (line.kind !== "LATE_USAGE" || !adjusts) return [];
    if (originalId !== undefined && adjusts.invoiceId !== originalId) return [];
    const { subtotal, overage, discount } = line.revenueBreakdown;
    return [
      {
        id: `${carrier.id}/${adjusts.product}`,
        invoiceId: adjusts.invoiceId,
        kind: "LATE_USAGE" as const,
        adjustedBy: carrier.id,
        number: carrier.number ?? null,
        product: adjusts.product,
        quantity: adjusts.quantity,
        amount: sumAmounts([subtotal, overage, -discount]),
        currency: carrier.currency,
        // When the line was stored (the server's clock; finalizedAt is the run's, a backfill's past day).
        createdAt: carrier.createdAt,
      },
    ];
  });
}

/** The adjustment a USAGE_CORRECTION credit note made by a billing run is (undefined for any other note). */
export function correctionAdjustment(note: CreditNote): InvoiceAdjustment | undefined {
  if (note.reason !== "USAGE_CORRECTION" || !note.adjusts) return undefined;
  return {
    id: note.id,
    invoiceId: note.invoiceId,
    kind: "USAGE_CORRECTION",
    adjustedBy: note.id,
    number: note.number,
    product: note.adjusts.product,
    quantity: note.adjusts.quantity,
    amount: -note.amount,
    currency: note.currency,
    createdAt: note.createdAt,
  };
}
