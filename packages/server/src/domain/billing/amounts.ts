import { MICROS } from "@billing/shared";

const MICROS_PER_CENT = 10_000n;

/** A fraction of a billing period: `days` of `periodDays` (1/1 when not prorated). */
export interface Proration {
  days: number;
  periodDays: number;
}
export const FULL_PERIOD: Proration = { days: 1, periodDays: 1 };

/** `numerator / denominator` micro-units rounded to whole cents, half up (amounts are never negative). */
export function roundToCents(numerator: bigint, denominator: bigint): number {
  const perCent = denominator * MICROS_PER_CENT;
  return Number(((2n * numerator + perCent) / (2n * perCent)) * MICROS_PER_CENT);
}

/**
 * The rounding rule of the service: a line's charge is computed exactly (quantity × price × proration, in
 * rational BigInt arithmetic) and rounded once, to whole cents, half up. Invoice totals are sums of rounded
 * lines, so they are exact cents too.
 */
export function lineChargeMicros(
  quantityMicros: number,
  unitPriceMicros: number,
  proration: Proration = FULL_PERIOD,
): number {
  return roundToCents(
    BigInt(quantityMicros) * BigInt(unitPriceMicros) * BigInt(proration.days),
    MICROS * BigInt(proration.periodDays),
  );
}

/** A fixed amount (e.g. a one-time price) rounded by the same rule. */
export const fixedChargeMicros = (amountMicros: number) => roundToCents(BigInt(amountMicros), 1n);

/**
 * A product group's one line: (base amount + committed units × price) prorated, plus one-time prices
 * (never prorated), computed exactly and rounded once.
 */
export function groupChargeMicros(
  baseAmountMicros: number,
  commitment: { unitsMicros: number; priceMicros: number } | undefined,
  oneTimeMicros: number,
  proration: Proration,
): number {
  const perCycle =
    BigInt(baseAmountMicros) * MICROS + BigInt(commitment?.unitsMicros ?? 0) * BigInt(commitment?.priceMicros ?? 0);
  const periodDays = BigInt(proration.periodDays);
  return roundToCents(
    perCycle * BigInt(proration.days) + BigInt(oneTimeMicros) * MICROS * periodDays,
    MICROS * periodDays,
  );
}

/** Whole cents at or below an amount: credits pay invoices in cents, the sub-cent rest stays on the balance. */
export const floorToCents = (micros: number) => micros - (micros % Number(MICROS_PER_CENT));

/** `numerator / denominator` micro-units rounded to a whole micro-unit, half up: for amounts shown, not charged. */
export const roundToMicros = (numerator: bigint, denominator: bigint): number =>
  Number((2n * numerator + denominator) / (2n * denominator));
