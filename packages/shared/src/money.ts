import { z } from "zod";

/**
 * Money rule of the service: amounts on the wire are decimal numbers in the currency of their contract, grant or
 * invoice, with at most 6 decimal places (micro-units); the server computes and stores them as integer micro-units,
 * so sums never drift. Line amounts are rounded to the currency's minor unit (server: domain/money/currency.ts).
 * More than 6 decimals is refused, never rounded silently.
 */
export const MICROS_PER_UNIT = 1_000_000;
/** One unit in micro-units, as a bigint: for products and sums that can pass 2^53. */
export const MICROS = BigInt(MICROS_PER_UNIT);
/**
 * 1e9 USD = 1e15 micros: one amount is an exact integer in a double, and so is any sum below 9e9 USD (2^53
 * micros). Invoices and balances are capped at 1e9; products of amounts (units × price) are taken in BigInt.
 */
export const MAX_AMOUNT = 1_000_000_000;

/** Exact conversion through the decimal text of the number, not `x * 1e6` (which drifts: 1.005 * 1e6). */
export function toMicros(amount: number): number {
  if (!Number.isFinite(amount)) throw new RangeError(`not a finite amount: ${amount}`);
  const [mantissa = "0", exponentText] = Math.abs(amount).toString().toLowerCase().split("e");
  const exponent = Number(exponentText ?? 0) + 6;
  const [whole = "0", fraction = ""] = mantissa.split(".");
  const digits = whole + fraction;
  const point = whole.length + exponent;
  if (point < digits.length && /[^0]/.test(digits.slice(Math.max(point, 0)))) {
    throw new RangeError(`more than 6 decimal places: ${amount}`);
  }
  const integerDigits = point <= 0 ? "0" : digits.slice(0, point).padEnd(point, "0");
  const micros = Number(integerDigits);
  return amount < 0 ? -micros : micros;
}

export const fromMicros = (micros: number): number => micros / MICROS_PER_UNIT;

/**
 * Micro-units held as a bigint (metered quantities, which may pass 2^53) as the decimal the API shows, rounded once:
 * the nearest double to the exact decimal text, never `Number(micros) / 1e6`, which rounds twice (to a double, then
 * in the division). Below 2^53 micro-units it equals fromMicros; above, it is still the nearest double, which is all
 * a JSON number carries (pricing reads the bigint, never this).
 */
export function unitsOfMicros(micros: bigint): number {
  const sign = micros < 0n ? "-" : "";
  const magnitude = micros < 0n ? -micros : micros;
  return Number(`${sign}${magnitude / MICROS}.${String(magnitude % MICROS).padStart(6, "0")}`);
}

export const hasAtMostSixDecimals = (amount: number): boolean => {
  try {
    toMicros(amount);
    return true;
  } catch {
    return false;
  }
};

/** One micro-unit: the step of every amount, stated in the document as `multipleOf`. */
export const MICRO = 1 / MICROS_PER_UNIT;

/**
 * A non-negative USD amount as callers send it. `multipleOf` states the rule in the document; the refinement, exact on
 * the number's decimal text, decides what the float check lets through, and runs only when the value has no issue yet
 * (one issue per amount). Nothing aborts: the cross-field rules of the objects that hold amounts still run, and one
 * answer names every problem.
 */
export const money = z
  .number()
  .min(0)
  .max(MAX_AMOUNT)
  .multipleOf(MICRO, { message: "at most 6 decimal places" })
  .refine(hasAtMostSixDecimals, { message: "at most 6 decimal places", when: ({ issues }) => issues.length === 0 })
  .meta({ description: "In the currency of its contract, grant or invoice; at most 6 decimal places." });

/**
 * An amount that may be negative: only a line's own figures (a MAXIMUM adjustment line takes off what its product
 * charged beyond its maximum) and the taxes on them. Invoices' figures stay `money`.
 */
export const signedMoney = z
  .number()
  .min(-MAX_AMOUNT)
  .max(MAX_AMOUNT)
  .multipleOf(MICRO, { message: "at most 6 decimal places" })
  .refine(hasAtMostSixDecimals, { message: "at most 6 decimal places", when: ({ issues }) => issues.length === 0 })
  .meta({ description: "In the currency of its invoice; negative only on a MAXIMUM adjustment line." });
