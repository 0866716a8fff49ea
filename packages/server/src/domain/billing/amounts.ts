import { MICROS } from "@billing/shared";
import { roundToMinorUnit } from "../money/currency.js";
import type { Micros } from "../money/micros.js";

/** A fraction of a billing period: `days` of `periodDays` (1/1 when not prorated). */
export interface Proration {
  days: number;
  periodDays: number;
}
export const FULL_PERIOD: Proration = { days: 1, periodDays: 1 };

/**
 * The rounding rule of the service: a line's charge is computed exactly (quantity × price × proration, in
 * rational BigInt arithmetic) and rounded once, to the minor unit of the contract's currency, half up
 * (`roundToMinorUnit`). Invoice totals are sums of rounded lines, so they are exact minor units too.
 */
export function lineChargeMicros(
  quantityMicros: number,
  unitPriceMicros: Micros,
  proration: Proration,
  currency: string,
): Micros {
  return roundToMinorUnit(
    BigInt(quantityMicros) * BigInt(unitPriceMicros) * BigInt(proration.days),
    MICROS * BigInt(proration.periodDays),
    currency,
  );
}

/** A fixed amount (e.g. a one-time price) rounded by the same rule. */
export const fixedChargeMicros = (amountMicros: Micros, currency: string) =>
  roundToMinorUnit(BigInt(amountMicros), 1n, currency);

/**
 * A product group's one line: (base amount + committed units × price) prorated, plus one-time prices
 * (never prorated), computed exactly and rounded once.
 */
export function groupChargeMicros(
  baseAmountMicros: Micros,
  commitment: { unitsMicros: number; priceMicros: Micros } | undefined,
  oneTimeMicros: Micros,
  proration: Proration,
  currency: string,
): Micros {
  const perCycle =
    BigInt(baseAmountMicros) * MICROS + BigInt(commitment?.unitsMicros ?? 0) * BigInt(commitment?.priceMicros ?? 0);
  const periodDays = BigInt(proration.periodDays);
  return roundToMinorUnit(
    perCycle * BigInt(proration.days) + BigInt(oneTimeMicros) * MICROS * periodDays,
    MICROS * periodDays,
    currency,
  );
}

/** `numerator / denominator` micro-units rounded to a whole micro-unit, half up: for amounts shown, not charged. */
export const roundToMicros = (numerator: bigint, denominator: bigint): number =>
  Number((2n * numerator + denominator) / (2n * denominator));

/**
 * A commitment's units included in the part of a cycle an amendment split off (`days` of the `coveredDays` the
 * contract covers in the cycle): units × days / coveredDays, rounded half up to a micro-unit (a millionth of a unit),
 * so the parts share out the cycle's units by days and usage beyond its share is a part's overage.
 */
export const includedUnitsMicros = (unitsMicros: number, share: { days: number; coveredDays: number }) =>
  roundToMicros(BigInt(unitsMicros) * BigInt(share.days), BigInt(share.coveredDays));
