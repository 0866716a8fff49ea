import { MICROS } from "@billing/shared";
import { floorToMinorUnit, microsPerMinorUnit, roundToMinorUnit } from "../money/currency.js";
import { asMicros, type Micros, minMicros, sumMicros, ZERO_MICROS } from "../money/micros.js";
import { chargedMicros } from "./adjustments.js";
import type { AppliedDiscount, DiscountInMicros } from "./contract.js";
import { contractDays, cyclesOf } from "./cycles.js";
import type { InvoiceBasis, InvoiceLine } from "./invoice.js";
import type { CycleCharge } from "./items.js";

export type { AppliedDiscount };

/** How many of the item's cycles had ended at `instant`: the number of the first cycle a coupon counts from. */
function cyclesEndedBy(basis: InvoiceBasis, charge: CycleCharge, instant: number): number {
  let ended = 0;
  const covered = contractDays(basis.contract.startDate, basis.contract.endDate);
  for (const cycle of cyclesOf(charge.item.scheduling, covered)) {
    if (cycle.end.getTime() > instant) break;
    ended += 1;
  }
  return ended;
}

/** Whether a discount applies to a charge's cycle: within its first `cycles`, starting in [from, until). */
export function appliesTo(discount: AppliedDiscount, charge: CycleCharge, basis: InvoiceBasis): boolean {
  const start = charge.cycle.start.getTime();
  if (discount.from !== undefined && start < Date.parse(discount.from)) return false;
  if (discount.until !== undefined && start >= Date.parse(discount.until)) return false;
  let first = 0;
  if (discount.redeemedAt !== undefined) {
    const redeemed = Date.parse(discount.redeemedAt);
    if (charge.cycle.end.getTime() <= redeemed) return false;
    first = cyclesEndedBy(basis, charge, redeemed);
  }
  return discount.cycles === undefined || charge.number - first < discount.cycles;
}

/**
 * The amount a discount takes off lines charging `baseMicros` together (before tax, after minimums and maximums and
 * the discounts before it): PERCENT, base × value / 100 rounded half up to the minor unit; AMOUNT, its value (whole
 * minor units of it), never more than the base.
 */
export function discountMicros(discount: DiscountInMicros, baseMicros: Micros, currency: string): Micros {
  if (baseMicros <= 0) return ZERO_MICROS;
  const off =
    discount.type === "PERCENT"
      ? roundToMinorUnit(BigInt(baseMicros) * BigInt(discount.valueMicros), 100n * MICROS, currency)
      : floorToMinorUnit(asMicros(discount.valueMicros), currency);
  return minMicros(off, baseMicros);
}

/**
 * `offMicros` shared out over the lines with something left to take off (their charge after discounts so far):
 * each its share in proportion, floored to the minor unit, then the minor units left one at a time in line order,
 * so that no line goes below 0 and the shares sum to `offMicros` exactly.
 */
function shareOut(lines: InvoiceLine[], offMicros: Micros, currency: string): InvoiceLine[] {
  const room = lines.map((line) => Math.max(0, chargedMicros(line)));
  const total = room.reduce((sum, value) => sum + value, 0);
  if (total === 0 || offMicros <= 0) return lines;
  const shares: number[] = room.map((value) =>
    floorToMinorUnit(asMicros(Number((BigInt(offMicros) * BigInt(value)) / BigInt(total))), currency),
  );
  let left = offMicros - shares.reduce((sum, value) => sum + value, 0);
  const step = microsPerMinorUnit(currency);
  for (let index = 0; left > 0 && index < lines.length; index += 1) {
    const more = Math.min(left, (room[index] ?? 0) - (shares[index] ?? 0));
    shares[index] = (shares[index] ?? 0) + more;
    left -= more;
  }
  if (left % step !== 0) throw new Error("a discount is not whole minor units");
  return lines.map((line, index) => ({
    ...line,
    discountMicros: asMicros(line.discountMicros + (shares[index] ?? 0)),
  }));
}

/** Applies one discount to the lines `eligible` picks among `lines`, leaving the others as they are. */
function applyOne(
  lines: InvoiceLine[],
  eligible: (line: InvoiceLine) => boolean,
  discount: DiscountInMicros,
  currency: string,
): InvoiceLine[] {
  const picked = lines.filter(eligible);
  const base = sumMicros(picked.map(chargedMicros));
  const discounted = shareOut(picked, discountMicros(discount, base, currency), currency);
  let next = 0;
  return lines.map((line) => (eligible(line) ? (discounted[next++] as InvoiceLine) : line));
}

/** Whether the line's product is one a contract discount names (by catalogProductId or displayName). */
const names = (discount: DiscountInMicros, charge: CycleCharge | undefined) =>
  discount.products === undefined ||
  (charge !== undefined &&
    discount.products.some((name) => name === charge.item.catalogProductId || name === charge.item.name));

/**
 * Stage "discounts", after minimums and maximums and before taxes and credits: each product's own discounts on its
 * lines, then the contract's (`products` named, else every line of the invoice), then `extra` (coupons redeemed), in
 * that order, each on what the ones before left. A discount is counted per charge cycle (`cycles`, `from`, `until`).
 */
export function applyDiscounts(
  lines: InvoiceLine[],
  basis: InvoiceBasis,
  extra: AppliedDiscount[] = [],
): InvoiceLine[] {
  const { cycle, contract } = basis;
  const chargeOf = (line: InvoiceLine) => (line.charge === undefined ? undefined : cycle.charges[line.charge]);
  let result = lines;
  cycle.charges.forEach((charge, index) => {
    for (const discount of charge.item.discounts ?? []) {
      if (!appliesTo(discount, charge, basis)) continue;
      result = applyOne(result, (line) => line.charge === index, discount, contract.currency);
    }
  });
  for (const discount of [...(contract.discounts ?? []), ...extra]) {
    const eligible = (line: InvoiceLine) => {
      const charge = chargeOf(line);
      return charge !== undefined && names(discount, charge) && appliesTo(discount, charge, basis);
    };
    result = applyOne(result, eligible, discount, contract.currency);
  }
  return result;
}
