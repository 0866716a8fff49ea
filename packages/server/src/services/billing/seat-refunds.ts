import { createHash } from "node:crypto";
import type { CreditNote, Invoice } from "@billing/shared";
import { ObjectId } from "mongodb";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { PricedLine } from "../../domain/billing/invoice.js";
import { plannedInvoices } from "../../domain/billing/items.js";
import { correctionTaxMicros } from "../../domain/billing/late-usage.js";
import { asMicros, type Micros } from "../../domain/money/micros.js";
import { microsOf } from "../../presenters/money.js";
import type { CallScope } from "../call-scope.js";
import { invoiceIdFor } from "./invoice-id.js";
import { issueCreditBack } from "./late-corrections.js";

/**
 * Seats removed after their prepaid cycle was issued are refunded on the next invoice, each product's refunds at most
 * what its lines there charge (domain/billing/invoice.ts). What the cap leaves is given back on the prepaid invoice
 * itself: a credit note (`ORDER_CHANGE`) of the rest and the tax that invoice's seat line added on that share, OFFSET
 * up to what it still asks, the rest as CREDITS (docs/decisions.md, "Seats").
 */

/** A rest's credit note id: derived from the prepaid invoice, the product, the invoice that refunds, and the way. */
export function seatRefundNoteId(originalId: string, product: string, foundBy: string, refund: CreditNote["refund"]) {
  const digest = createHash("sha256")
    .update(JSON.stringify(["SEAT_REFUND", originalId, product, foundBy, refund]))
    .digest();
  return new ObjectId(digest.subarray(0, 12)).toHexString();
}

/** Whether any seat change of the contract came after its prepaid cycle was issued: only then may a rest exist. */
export const hasLateSeatChanges = (contract: ContractInMicros) =>
  (contract.seatChanges ?? []).some((change) => change.late === true);

/** The prepaid invoice of the contract's cycle starting at `cycleStart` that billed `product`, if it was made. */
async function prepaidInvoiceOf(
  call: CallScope,
  contract: ContractInMicros,
  product: string,
  cycleStart: Date,
): Promise<Invoice | undefined> {
  const planned = plannedInvoices(contract, cycleStart).find(
    (invoice) =>
      invoice.prepaid &&
      invoice.start.getTime() === cycleStart.getTime() &&
      invoice.charges.some((charge) => charge.item.prices.some((price) => price.name === product)),
  );
  if (!planned) return undefined;
  return call.repositories.invoices.get(
    call.accountId,
    invoiceIdFor(call.accountId, contract.id, planned.key).toHexString(),
  );
}

/** What the prepaid invoice's seat line of `product` charged before tax, and the tax it added. */
function seatCharge(original: Invoice, product: string): { chargedMicros: Micros; addedTaxMicros: Micros } {
  const lines = original.lineItems.filter((line) => line.kind === "SEATS" && line.name === product);
  const addedTax = (line: (typeof lines)[number]) =>
    line.taxes.reduce<number>((tax, { inclusive, amount }) => tax + (inclusive ? 0 : microsOf(amount)), 0);
  return {
    chargedMicros: asMicros(
      lines.reduce<number>(
        (sum, line) => sum + microsOf(line.revenueBreakdown.subtotal) - microsOf(line.revenueBreakdown.discount),
        0,
      ),
    ),
    addedTaxMicros: asMicros(lines.reduce<number>((sum, line) => sum + addedTax(line), 0)),
  };
}

/**
 * Gives back, on each prepaid invoice, the rest of the seat refunds the invoice `foundBy` could not take (its lines'
 * `refundRest`), once (the notes' ids are derived). `at`: the server's clock.
 */
export async function creditSeatRefundRests(
  call: CallScope,
  contract: ContractInMicros,
  lines: PricedLine[],
  foundBy: string,
  at: Date,
): Promise<void> {
  const rests = new Map<string, { product: string; cycleStart: Date; restMicros: Micros }>();
  for (const { refundRest } of lines) {
    if (!refundRest) continue;
    const key = JSON.stringify([refundRest.product, refundRest.cycleStart]);
    const seen = rests.get(key);
    rests.set(key, { ...refundRest, restMicros: asMicros((seen?.restMicros ?? 0) + refundRest.restMicros) });
  }
  for (const { product, cycleStart, restMicros } of rests.values()) {
    const original = await prepaidInvoiceOf(call, contract, product, cycleStart);
    if (!original) continue;
    const taxMicros = correctionTaxMicros(restMicros, seatCharge(original, product), original.currency);
    await issueCreditBack(call, original.id, at, {
      creditMicros: asMicros(restMicros + taxMicros),
      idOf: (refund) => seatRefundNoteId(original.id, product, foundBy, refund),
      reason: "ORDER_CHANGE",
    });
  }
}
