import { CURRENCY_CODES } from "@billing/shared";
import { code as isoCurrency } from "currency-codes";
import { badRequest } from "../errors.js";
import { asMicros, type Micros } from "./micros.js";

/** The currency of a contract, a grant or an account that names none. */
export const DEFAULT_CURRENCY = "USD";

const KNOWN = new Set<string>(CURRENCY_CODES);

/** Whether the service bills in `code`: one of shared `CURRENCY_CODES` (the schemas accept no other). */
export const isKnownCurrency = (code: string): boolean => KNOWN.has(code);

/** Decimal digits of the currency's minor unit: USD 2, JPY 0, KWD 3. Throws for a code `isKnownCurrency` refuses. */
export function minorUnitDigitsOf(code: string): number {
  const record = isKnownCurrency(code) ? isoCurrency(code) : undefined;
  if (record === undefined) throw new RangeError(`not an ISO 4217 currency: ${code}`);
  return record.digits;
}

/** Micro-units in one minor unit: 10 000 for USD (a cent), 1 000 000 for JPY, 1 000 for KWD (a fils). */
export const microsPerMinorUnit = (code: string): number => 10 ** (6 - minorUnitDigitsOf(code));

/**
 * The money rule of the service: `numerator / denominator` micro-units rounded half up to a multiple of `step`
 * micro-units (a minor unit); a negative amount (a MAXIMUM or seat refund line's tax) as its opposite, so that it
 * mirrors the same charge's exactly. The one rounding of money: line amounts (roundToMinorUnit) and taxes.
 */
export function roundHalfUp(numerator: bigint, denominator: bigint, step: number): Micros {
  if (numerator < 0n) return asMicros(-roundHalfUp(-numerator, denominator, step));
  const perStep = denominator * BigInt(step);
  return asMicros(Number(((2n * numerator + perStep) / (2n * perStep)) * BigInt(step)));
}

/**
 * `numerator / denominator` micro-units rounded to the currency's minor unit by the money rule (roundHalfUp). Every
 * line amount passes here once: 1.5 JPY → 2 JPY, 0.0125 USD → 0.01 USD.
 */
export const roundToMinorUnit = (numerator: bigint, denominator: bigint, code: string): Micros =>
  roundHalfUp(numerator, denominator, microsPerMinorUnit(code));

/** Whole minor units at or below an amount: credits pay invoices in minor units, the rest stays on the balance. */
export const floorToMinorUnit = (micros: Micros, code: string): Micros =>
  asMicros(micros - (micros % microsPerMinorUnit(code)));

/** Whether an amount is a whole number of the currency's minor units (what a payment or a fixed fee must be). */
export const isWholeMinorUnits = (micros: number, code: string): boolean => micros % microsPerMinorUnit(code) === 0;

/** 400 naming `path` unless the amount is whole minor units of the currency: what a payment or a credit can move. */
export function assertWholeMinorUnits(micros: number, code: string, path: string): void {
  if (!isWholeMinorUnits(micros, code)) {
    const digits = minorUnitDigitsOf(code);
    throw badRequest(`${path} must be whole minor units of ${code}`, [
      { path, message: `at most ${digits} decimal place${digits === 1 ? "" : "s"} in ${code}` },
    ]);
  }
}
