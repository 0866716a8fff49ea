import type { Invoice, LineItem } from "@billing/shared";
import { sumAmounts } from "../presenters/money.js";
import type { DocumentContent, DocumentLine, Party } from "./content.js";
import { amountsIn, formatDate, formatQuantity } from "./format.js";

type Format = (amount: number) => string;

const tierText = (formatAmount: Format) => (tier: NonNullable<LineItem["tiers"]>[number]) =>
  `${tier.upTo === null ? "Tier above" : `Tier up to ${formatQuantity(tier.upTo)}`}: ` +
  `${formatQuantity(tier.quantity)} × ${formatAmount(tier.unitPrice)} + ${formatAmount(tier.flatPrice)} = ` +
  formatAmount(tier.amount);

/**
 * A line's charge before reductions, as the lines table shows it: subtotal + overage, summed exactly in micro-units
 * (every line the engine makes has one of the two at 0). The lines then add up to the invoice's subtotal + overage,
 * and the totals block takes discount, credits and tax from there, as an invoice reads.
 */
const chargeOf = ({ revenueBreakdown: rb }: LineItem) => sumAmounts([rb.subtotal, rb.overage]);

/** A tax as the documents print it, on a line and in the summary: which rate, on what, how much. */
const taxText =
  (formatAmount: Format) =>
  ({ name, rate, inclusive, taxableAmount }: LineItem["taxes"][number]) =>
    `${name} (${rate} %${inclusive ? ", included" : ""}) on ${formatAmount(taxableAmount)}`;

/** What an adjustment line of the deal terms is, printed under it (docs/decisions.md, "Deal terms"). */
const ADJUSTMENT_NOTES: Partial<Record<LineItem["kind"], string>> = {
  MINIMUM: "True-up to the minimum",
  MAXIMUM: "Charges beyond the maximum, taken off",
  LATE_USAGE: "Usage stored after the invoice named was issued: its whole cycle priced again, minus what it charged",
};

/**
 * A seat adjustment line (`+3 seats from Apr 11`, `−10 seats from Apr 21`): seats changed after their prepaid cycle
 * was issued, billed or refunded on this invoice for their days to that cycle's end (docs/decisions.md, "Seats").
 */
const seatAdjustmentNote = ({ kind, name }: LineItem) => {
  if (kind !== "SEATS") return [];
  if (name.startsWith("+")) return ["Seats added after the prepaid cycle was invoiced, for its remaining days"];
  if (name.startsWith("\u2212"))
    return ["Seats removed after the prepaid cycle was invoiced, refunded for its remaining days"];
  return [];
};

/** A line's discount, printed under it with what the line charges after it. */
const discountText = ({ revenueBreakdown: rb }: LineItem, formatAmount: Format) =>
  rb.discount === 0
    ? []
    : [`Discount −${formatAmount(rb.discount)}: ${formatAmount(sumAmounts([rb.subtotal, rb.overage, -rb.discount]))}`];

const lineOf =
  (formatAmount: Format) =>
  (line: LineItem): DocumentLine => {
    const { packages: bought } = line;
    const packages = bought
      ? [`${bought.count} packages of ${formatQuantity(bought.size)} at ${formatAmount(bought.price)}`]
      : [];
    return {
      description: line.name,
      quantity: line.quantity === undefined ? "" : formatQuantity(line.quantity),
      unitPrice: line.unitPrice === undefined ? "" : formatAmount(line.unitPrice),
      amount: formatAmount(chargeOf(line)),
      details: [
        ...(ADJUSTMENT_NOTES[line.kind] ? [ADJUSTMENT_NOTES[line.kind] as string] : []),
        ...seatAdjustmentNote(line),
        ...discountText(line, formatAmount),
        ...(line.tiers ?? []).map(tierText(formatAmount)),
        ...packages,
        ...line.taxes.map((tax) => `${taxText(formatAmount)(tax)}: ${formatAmount(tax.amount)}`),
      ],
    };
  };

/** The number of the invoice `originalId` as the adjustment's lines name it (its id when it has none). */
const adjustedNumber = (invoice: Invoice, originalId: string) =>
  invoice.lineItems.find((line) => line.adjusts?.invoiceId === originalId)?.adjusts?.number ?? originalId;

/**
 * What an invoice's PDF and HTML say, from the invoice as the API returns it, its customer and the account that
 * issues it. Issued on the day it was finalized (a draft: the day it was made); every amount as the API gives it,
 * with the digits of the invoice's currency.
 */
export function invoiceContent(invoice: Invoice, seller: Party, buyer: Party): DocumentContent {
  const rb = invoice.revenueBreakdown;
  const formatAmount = amountsIn(invoice.currency);
  /** What reduces the total, printed as taken off (a minus sign) unless it is nothing. */
  const reduction = (amount: number) => (amount === 0 ? formatAmount(0) : `−${formatAmount(amount)}`);
  return {
    title: "INVOICE",
    number: invoice.number ?? "DRAFT",
    ...(invoice.status === "VOIDED" && { stamp: "VOID" }),
    seller,
    buyer,
    facts: [
      // What the reader looks for first, at the top: what is owed (a finalized invoice's), and by when.
      ...(invoice.status === "FINALIZED"
        ? [{ label: "Amount due", value: `${formatAmount(invoice.amountDue)} ${invoice.currency}`, emphasis: true }]
        : []),
      { label: "Invoice number", value: invoice.number ?? "DRAFT" },
      { label: "Issue date", value: formatDate(invoice.finalizedAt ?? invoice.createdAt) },
      { label: "Due date", value: formatDate(invoice.dueDate) },
      {
        label: "Billing cycle",
        value: `${formatDate(invoice.billingCycle.startTime)} to ${formatDate(invoice.billingCycle.endTime)}`,
      },
      { label: "Currency", value: invoice.currency },
      { label: "Status", value: invoice.status },
      ...(invoice.voidedAt ? [{ label: "Voided on", value: formatDate(invoice.voidedAt) }] : []),
      { label: "Reference", value: invoice.name },
      // An adjustment invoice (late usage, ADJUSTMENT_INVOICE) names the invoice it adjusts, by its number.
      ...(invoice.kind === "ADJUSTMENT" && invoice.adjusts
        ? [{ label: "Adjusts invoice", value: adjustedNumber(invoice, invoice.adjusts) }]
        : []),
      ...(invoice.taxExempt ? [{ label: "Tax", value: "Customer exempt: no tax charged" }] : []),
    ],
    lines: invoice.lineItems.map(lineOf(formatAmount)),
    totals: [
      { label: "Subtotal", value: formatAmount(rb.subtotal) },
      { label: "Overage", value: formatAmount(rb.overage) },
      { label: "Discount", value: reduction(rb.discount) },
      // Taxes before credits: the order they apply in (credits pay the tax too).
      ...invoice.taxSummary.map((tax) => ({ label: taxText(formatAmount)(tax), value: formatAmount(tax.amount) })),
      { label: "Tax", value: formatAmount(rb.tax) },
      // Already in the prices above: shown, never added (total = subtotal + overage − discount + tax − credits used).
      ...(rb.taxInclusive === 0 ? [] : [{ label: "Tax included", value: formatAmount(rb.taxInclusive) }]),
      { label: "Credits used", value: reduction(rb.creditsUsed) },
      { label: "Total", value: formatAmount(rb.total), emphasis: true },
      { label: "Amount paid", value: formatAmount(invoice.amountPaid) },
      { label: "Amount credited", value: formatAmount(invoice.amountCredited) },
      { label: "Amount due", value: formatAmount(invoice.amountDue), emphasis: true },
    ],
    footer: `All amounts in ${invoice.currency}. The billing cycle's end is exclusive.`,
  };
}
