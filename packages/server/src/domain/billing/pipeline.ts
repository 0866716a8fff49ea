import { DAY_MS, type InvoiceDraft, type RevenueBreakdown } from "@billing/shared";
import { floorToMinorUnit } from "../money/currency.js";
import { addMicros, asMicros, type Micros, subMicros, sumMicros, ZERO_MICROS } from "../money/micros.js";
import { applyMinimumCommitment, applyMinimumsAndMaximums, chargedMicros } from "./adjustments.js";
import type { TierCharge } from "./charge-models/index.js";
import { dayKey } from "./cycles.js";
import { applyDiscounts } from "./discounts.js";

export { applyDiscounts };

import {
  type InvoiceBasis,
  type InvoiceLine,
  type LineAdjusts,
  type PaymentTerms,
  type PricedLine,
  priceLines,
} from "./invoice.js";
import { plannedInvoices } from "./items.js";
import {
  addedTaxMicros,
  applicableRates,
  includedTaxMicros,
  type LineTaxInMicros,
  lineTaxes,
  type TaxTerms,
} from "./tax.js";

/**
 * An invoice is composed by pure stages, in this order: usage (measured by the caller: `InvoiceBasis.usage`) →
 * lines (charge models) → minimums and maximums (adjustments.ts) → discounts (discounts.ts) → minimum commitment →
 * taxes → credit notes → credits → totals. Every stage takes the lines the previous one left and fills its own
 * amounts (micro-units); the stages nothing configures yet are the identity, so their issues land as one function
 * each. The order and the rounding are stated once in docs/decisions.md ("Deal terms: the order of the stages").
 */
export type { InvoiceLine };

/** What a priced line carries before discounts, taxes and credits take anything off it. */
const NOTHING_TAKEN_OFF = { discountMicros: ZERO_MICROS, taxes: [], creditsUsedMicros: ZERO_MICROS };

/** Stage "lines": the priced lines, nothing taken off or added yet. */
export const linesStage = (basis: InvoiceBasis): InvoiceLine[] =>
  priceLines(basis).map((line) => ({ ...line, ...NOTHING_TAKEN_OFF }));

/**
 * Stage "taxes": each line taxed by the rates that apply to it (tax.ts), on its amount after discounts and before
 * credits, so credits pay taxes too (Lago takes credits off before taxes; we tax what was sold, as the law does).
 */
export const applyTaxes = (lines: InvoiceLine[], terms: TaxTerms): InvoiceLine[] =>
  lines.map((line) => {
    return {
      ...line,
      taxes: lineTaxes(chargedMicros(line), applicableRates(line.taxRateCodes, terms), terms.minorUnitDigits),
    };
  });

/**
 * Stage "late usage": the LATE_USAGE lines of earlier cycles (late-usage.ts), after the commitment (theirs was
 * counted when their cycle was priced again) and before taxes.
 */
export const addLateUsage = (lines: InvoiceLine[], basis: InvoiceBasis): InvoiceLine[] => [
  ...lines,
  ...(basis.lateUsage ?? []).map((line) => ({ ...line, ...NOTHING_TAKEN_OFF })),
];

/**
 * Stage "threshold billed": the THRESHOLD_BILLED lines (thresholds.ts), after late usage and before taxes, so the tax
 * the threshold invoices added is taken off with their charge.
 */
export const addThresholdBilled = (lines: InvoiceLine[], basis: InvoiceBasis): InvoiceLine[] => [
  ...lines,
  ...(basis.thresholdBilled ?? []).map((line) => ({ ...line, ...NOTHING_TAKEN_OFF })),
];

/** Stage "credit notes": none can be issued yet. */
export const applyCreditNotes = (lines: InvoiceLine[]): InvoiceLine[] => lines;

/**
 * What a line asks to be paid before credits: subtotal + overage − discount + tax added (not tax included); a MAXIMUM
 * line's is negative.
 */
const lineDueMicros = (line: InvoiceLine): Micros => addMicros(chargedMicros(line), addedTaxMicros(line.taxes));

/** What the invoice asks to be paid before credits: the sum of its lines'. */
export const amountDueMicros = (lines: InvoiceLine[]): Micros => sumMicros(lines.map(lineDueMicros));

/** The lines up to the discounts: what a cycle's invoice charges before the minimum commitment and taxes. */
const discountedLines = (basis: InvoiceBasis) =>
  applyDiscounts(applyMinimumsAndMaximums(linesStage(basis), basis), basis, basis.coupons);

/**
 * What counts with this invoice for the contract's minimum commitment, or `undefined` when it takes no true-up: a
 * cycle billed in advance and in arrears is trued up once, on its invoice in arrears, which counts the one in
 * advance (priced here: it reads no usage); a TERM commitment counts what the term's earlier invoices charged.
 */
function countedElsewhere(basis: InvoiceBasis): Micros | undefined {
  const { contract, cycle } = basis;
  if (!contract.minimumCommitment) return ZERO_MICROS;
  const siblings = plannedInvoices(contract, cycle.start).filter(
    (other) =>
      other.key !== cycle.key &&
      other.start.getTime() === cycle.start.getTime() &&
      other.end.getTime() === cycle.end.getTime(),
  );
  if (cycle.prepaid && siblings.some((other) => !other.prepaid)) return undefined;
  if (contract.minimumCommitment.period === "TERM") return basis.termChargedMicros ?? ZERO_MICROS;
  const advances = siblings
    .filter((other) => other.prepaid)
    .map((other) => ({ ...basis, cycle: other, usage: other.charges.map(() => new Map()) }));
  return sumMicros(advances.flatMap((advance) => discountedLines(advance).map(chargedMicros)));
}

/** Every stage before credits: what the customer owes, which decides how much of their credits may pay it. */
export function chargeLines(basis: InvoiceBasis): InvoiceLine[] {
  const discounted = discountedLines(basis);
  const elsewhere = countedElsewhere(basis);
  const committed = elsewhere === undefined ? discounted : applyMinimumCommitment(discounted, basis, elsewhere);
  return applyCreditNotes(applyTaxes(addThresholdBilled(addLateUsage(committed, basis), basis), basis.tax));
}

/**
 * Stage "credits": whole minor units of `creditMicros` (credits of the invoice's currency) pay the lines in order,
 * each up to what it asks (the rest below one minor unit is not used).
 */
export function applyCredits(lines: InvoiceLine[], creditMicros: Micros, currency: string): InvoiceLine[] {
  let creditsLeft: number = floorToMinorUnit(creditMicros, currency);
  return lines.map((line) => {
    const creditsUsedMicros = asMicros(Math.max(0, Math.min(creditsLeft, lineDueMicros(line))));
    creditsLeft -= creditsUsedMicros;
    return { ...line, creditsUsedMicros };
  });
}

/** The money of a line or an invoice, each figure in micro-units (the API's RevenueBreakdown, in micros). */
export type BreakdownInMicros = Record<keyof RevenueBreakdown, Micros>;

/** A line of an invoice as the service holds it: quantities and amounts in micro-units. */
export interface LineItemInMicros {
  name: string;
  kind: PricedLine["kind"];
  catalogProductId?: string;
  quantityMicros?: bigint;
  unitPriceMicros?: Micros;
  tiers?: TierCharge[];
  packages?: PricedLine["packages"];
  version?: number;
  adjusts?: LineAdjusts;
  revenueBreakdown: BreakdownInMicros;
  taxes: LineTaxInMicros[];
}

/** An invoice as the engine composes it: the API's draft with every amount and quantity in micro-units. */
export type InvoiceDraftInMicros = Omit<InvoiceDraft, "revenueBreakdown" | "amount" | "lineItems" | "taxSummary"> & {
  revenueBreakdown: BreakdownInMicros;
  amountMicros: Micros;
  lineItems: LineItemInMicros[];
};

/** Line total = subtotal + overage − discount + tax − creditsUsed; the included tax is already in the first two. */
const breakdownOf = (line: InvoiceLine): BreakdownInMicros => ({
  subtotal: line.subtotalMicros,
  overage: line.overageMicros,
  discount: line.discountMicros,
  creditsUsed: line.creditsUsedMicros,
  tax: addedTaxMicros(line.taxes),
  taxInclusive: includedTaxMicros(line.taxes),
  total: subMicros(lineDueMicros(line), line.creditsUsedMicros),
});

/**
 * When an invoice issued at `issuedAt` is due, never before it: `netDays` days after it (0: at issue), or, for
 * END_OF_MONTH, the last day (00:00Z) of the month it is issued in, or of the next month when it is issued on that
 * very day (due before its own issue instant, it would be overdue at birth).
 */
export function dueDateOf(issuedAt: Date, terms: PaymentTerms): Date {
  if (terms !== "END_OF_MONTH") return new Date(issuedAt.getTime() + terms.netDays * DAY_MS);
  const lastDayOf = (monthsAfter: number) =>
    new Date(Date.UTC(issuedAt.getUTCFullYear(), issuedAt.getUTCMonth() + monthsAfter + 1, 0));
  const thisMonth = lastDayOf(0);
  return thisMonth > issuedAt ? thisMonth : lastDayOf(1);
}

/**
 * Stage "totals": the invoice's figures. Line total = subtotal + overage − discount + tax − creditsUsed (`tax` is
 * what exclusive rates add; tax included in the prices is `taxInclusive`, already in the subtotal); the invoice's
 * breakdown is the sum of its lines', and its `amountMicros` equals its total.
 */
export function totalInvoice(
  { contract, cycle, issuedAt, paymentTerms, tax }: InvoiceBasis,
  lines: InvoiceLine[],
): InvoiceDraftInMicros {
  const lineItems = lines.map((line): LineItemInMicros => {
    const { name, kind, catalogProductId, quantityMicros, unitPriceMicros, tiers, packages, taxes, version, adjusts } =
      line;
    return {
      name,
      kind,
      ...(catalogProductId !== undefined && { catalogProductId }),
      ...(quantityMicros !== undefined && { quantityMicros }),
      ...(unitPriceMicros !== undefined && { unitPriceMicros }),
      ...(tiers && { tiers }),
      ...(packages && { packages }),
      ...(version !== undefined && { version }),
      ...(adjusts && { adjusts }),
      revenueBreakdown: breakdownOf(line),
      taxes,
    };
  });
  const sum = (field: keyof BreakdownInMicros) => sumMicros(lineItems.map((line) => line.revenueBreakdown[field]));
  const revenueBreakdown: BreakdownInMicros = {
    subtotal: sum("subtotal"),
    overage: sum("overage"),
    discount: sum("discount"),
    creditsUsed: sum("creditsUsed"),
    tax: sum("tax"),
    taxInclusive: sum("taxInclusive"),
    total: sum("total"),
  };
  return {
    customerId: contract.customerId,
    contractId: contract.id,
    currency: contract.currency,
    name: `${contract.name}: ${dayKey(cycle.start)} to ${dayKey(cycle.end)}`,
    billingCycle: { startTime: cycle.start.toISOString(), endTime: cycle.end.toISOString() },
    revenueBreakdown,
    billingStatus: "None",
    dueDate: dueDateOf(issuedAt, paymentTerms).toISOString(),
    amountMicros: revenueBreakdown.total,
    lineItems,
    taxExempt: tax.exempt,
  };
}

/**
 * What credits pay of an invoice whose lines ask `amountDueMicros` (before credits), in micro-units of its currency:
 * for an invoice stored nowhere, what the customer's balance could pay; for one a run makes, the debit of the
 * customer's grants (services/billing/price-cycle.ts). Whole minor units of it are used.
 */
export type CreditPayment = (amountDueMicros: Micros) => Promise<Micros>;

/**
 * The invoice of one contract cycle, every stage run once, in order: the lines charged (usage → lines → discounts →
 * taxes → credit notes), their totals checked by `check` (the money limits) before any credit is spent, then
 * `payFromCredits` (a step of its own: it may debit the ledger), and the totals after credits. An invoice with no
 * line is answered as it is: no credit pays it. Rounding: each line is rounded to the minor unit of the contract's
 * currency by its charge model (see amounts.ts), so every sum is exact minor units.
 */
export async function composeInvoice(
  basis: InvoiceBasis,
  steps: {
    check: (unpaid: InvoiceDraftInMicros) => InvoiceDraftInMicros;
    payFromCredits: CreditPayment;
  },
): Promise<InvoiceDraftInMicros> {
  const charged = chargeLines(basis);
  const unpaid = steps.check(totalInvoice(basis, charged));
  if (unpaid.lineItems.length === 0) return unpaid;
  const paidMicros = await steps.payFromCredits(amountDueMicros(charged));
  // Credits only lower what lines ask, so the paid invoice is within the limits the unpaid one was checked against.
  return paidMicros > 0 ? totalInvoice(basis, applyCredits(charged, paidMicros, basis.contract.currency)) : unpaid;
}
