import { MICROS_PER_UNIT } from "@billing/shared";

const MICROS = BigInt(MICROS_PER_UNIT);
const MICROS_PER_CENT = 10_000n;

/** A fraction of a billing period: `days` of `periodDays` (1/1 when not prorated). */
export interface Proration {
  days: number;
  periodDays: number;
}
export const FULL_PERIOD: Proration = { days: 1, periodDays: 1 };

/**
 * The rounding rule of the service: a line's charge is computed exactly (quantity × price × proration, in
 * rational BigInt arithmetic) and rounded once, to whole cents, half up. Invoice totals are sums of rounded
 * lines, so they are exact cents too.
 */
export function lineChargeMicros(quantityMicros: number, unitPriceMicros: number, proration: Proration = FULL_PERIOD): number {
  const numerator = BigInt(quantityMicros) * BigInt(unitPriceMicros) * BigInt(proration.days);
  const denominator = MICROS * BigInt(proration.periodDays) * MICROS_PER_CENT;
  const cents = (2n * numerator + denominator) / (2n * denominator); // half up, for non-negative amounts
  return Number(cents * MICROS_PER_CENT);
}

/** A fixed amount (e.g. a product group's base amount) prorated and rounded by the same rule. */
export const fixedChargeMicros = (amountMicros: number, proration: Proration = FULL_PERIOD) =>
  lineChargeMicros(MICROS_PER_UNIT, amountMicros, proration);

/** Whole cents at or below an amount: credits pay invoices in cents, the sub-cent rest stays on the balance. */
export const floorToCents = (micros: number) => micros - (micros % Number(MICROS_PER_CENT));
