import { MICROS_PER_UNIT } from "@billing/shared";
import { addMicros, asMicros, type Micros, subMicros, sumMicros, ZERO_MICROS } from "../money/micros.js";
import { lineChargeMicros, type Proration } from "./amounts.js";
import { contractDays, coveredPart } from "./cycles.js";
import { type InvoiceBasis, type InvoiceLine, usagePeriod } from "./invoice.js";

/**
 * The adjustments of the deal terms (docs/decisions.md, "Deal terms"): a product's minimum and maximum a cycle, and
 * the contract's minimum commitment. Each makes a line of its own so that the lines still explain the total: a
 * MINIMUM true-up line (positive), or a MAXIMUM line whose amount is negative (with a seat refund, the only lines that
 * may be: domain/contracts/seats.ts).
 */

/** An amount a cycle, prorated by the days of it that are billed, rounded once to the minor unit. */
export const proratedAmountMicros = (amountMicros: Micros, proration: Proration, currency: string) =>
  lineChargeMicros(MICROS_PER_UNIT, amountMicros, proration, currency);

/** What a line charges before tax: subtotal + overage − discount (a MAXIMUM line's is negative). */
export const chargedMicros = (line: InvoiceLine): Micros =>
  asMicros(line.subtotalMicros + line.overageMicros - line.discountMicros);

const adjustmentLine = (
  kind: "MINIMUM" | "MAXIMUM",
  name: string,
  amountMicros: Micros,
  from: Partial<InvoiceLine>,
): InvoiceLine => ({
  name,
  kind,
  ...(from.catalogProductId !== undefined && { catalogProductId: from.catalogProductId }),
  ...(from.taxRateCodes && { taxRateCodes: from.taxRateCodes }),
  ...(from.version !== undefined && { version: from.version }),
  ...(from.charge !== undefined && { charge: from.charge }),
  subtotalMicros: amountMicros,
  overageMicros: ZERO_MICROS,
  discountMicros: ZERO_MICROS,
  taxes: [],
  creditsUsedMicros: ZERO_MICROS,
});

/**
 * Stage "minimums and maximums": the lines of each product with a `minimum` or `maximum` a cycle, one-time prices
 * aside, are summed; below the minimum (prorated by the days of the cycle the charge bills), a line "Minimum for
 * <product>" makes up the rest; above the maximum (prorated the same way), a line "Maximum for <product>" takes the
 * excess off. Each comes right after its product's lines and carries its product and tax rates.
 */
export function applyMinimumsAndMaximums(lines: InvoiceLine[], basis: InvoiceBasis): InvoiceLine[] {
  const { contract, cycle } = basis;
  const out: InvoiceLine[] = [];
  cycle.charges.forEach((charge, index) => {
    const own = lines.filter((line) => line.charge === index);
    out.push(...own);
    const { minimumMicros, maximumMicros } = charge.item;
    if (minimumMicros === undefined && maximumMicros === undefined) return;
    const { days, periodDays } = usagePeriod(contract, charge.cycle, charge.days);
    const proration = { days, periodDays };
    const charged = sumMicros(own.filter((line) => line.kind !== "ONE_TIME").map(chargedMicros));
    const template = { ...own[0], charge: index, version: charge.version, name: charge.item.name };
    if (charge.item.catalogProductId) template.catalogProductId = charge.item.catalogProductId;
    if (charge.item.taxRateCodes) template.taxRateCodes = charge.item.taxRateCodes;
    const minimum =
      minimumMicros === undefined ? ZERO_MICROS : proratedAmountMicros(minimumMicros, proration, contract.currency);
    if (minimumMicros !== undefined && charged < minimum) {
      out.push(adjustmentLine("MINIMUM", `Minimum for ${charge.item.name}`, subMicros(minimum, charged), template));
      return;
    }
    if (maximumMicros === undefined) return;
    const maximum = proratedAmountMicros(maximumMicros, proration, contract.currency);
    if (charged > maximum)
      out.push(adjustmentLine("MAXIMUM", `Maximum for ${charge.item.name}`, subMicros(maximum, charged), template));
  });
  // Lines no charge made (none today) keep their place at the end.
  return [...out, ...lines.filter((line) => line.charge === undefined)];
}

/**
 * What a contract's minimum commitment asks of one invoice, the charges of the others that count with it aside:
 * CYCLE, the amount prorated by the days of the invoice's cycle the contract covers; TERM, the whole amount, on the
 * term's last invoice only (the one ending on the contract's endDate), else nothing.
 */
export function commitmentDueMicros({ contract, cycle }: InvoiceBasis): Micros | undefined {
  const commitment = contract.minimumCommitment;
  if (!commitment) return undefined;
  const covered = contractDays(contract.startDate, contract.endDate);
  if (commitment.period === "TERM") {
    return covered.to && cycle.end.getTime() === covered.to.getTime() ? commitment.amountMicros : undefined;
  }
  const { days, periodDays } = coveredPart(cycle, covered);
  return proratedAmountMicros(commitment.amountMicros, { days, periodDays }, contract.currency);
}

/**
 * Stage "minimum commitment": when the contract's charges (before tax, after discounts) that count for its minimum
 * commitment — this invoice's, plus `countedElsewhereMicros` (the other invoices of the cycle or the term) — fall
 * short of what the commitment asks of it, a MINIMUM line "Minimum commitment" makes up the rest. It names no product,
 * so the contract's tax rates (else the customer's, else the account's) tax it.
 */
export function applyMinimumCommitment(
  lines: InvoiceLine[],
  basis: InvoiceBasis,
  countedElsewhereMicros: Micros,
): InvoiceLine[] {
  const dueMicros = commitmentDueMicros(basis);
  if (dueMicros === undefined) return lines;
  const charged = addMicros(sumMicros(lines.map(chargedMicros)), countedElsewhereMicros);
  if (charged >= dueMicros) return lines;
  return [...lines, adjustmentLine("MINIMUM", "Minimum commitment", subMicros(dueMicros, charged), {})];
}
