/**
 * Money inside the server: an integer count of micro-units (1e-6) of its currency, as a branded number. Only a
 * constructor below makes one (`presenters/` from the API's decimals, `asMicros` from a stored or computed integer),
 * so a decimal amount never passes where micro-units are meant. Its currency travels beside it (the contract's, the
 * grant's, the invoice's): `Money` where one value crosses a boundary alone. The brand is a type only: at run time
 * a `Micros` is the plain number, stored and compared as before.
 */
declare const MICROS: unique symbol;
export type Micros = number & { readonly [MICROS]: "Micros" };

/** An amount with its currency: what a message or a document states on its own. */
export interface Money {
  micros: Micros;
  currency: string;
}

/** Micro-units from a number already in micro-units: a stored field, or integer arithmetic the caller did. */
export const asMicros = (micros: number): Micros => micros as Micros;

export const ZERO_MICROS = asMicros(0);

export const addMicros = (a: Micros, b: Micros): Micros => asMicros(a + b);
export const subMicros = (a: Micros, b: Micros): Micros => asMicros(a - b);
export const sumMicros = (amounts: readonly Micros[]): Micros =>
  asMicros(amounts.reduce<number>((total, amount) => total + amount, 0));
export const minMicros = (a: Micros, b: Micros): Micros => (a <= b ? a : b);

/**
 * A bigint count of micro-units (a metered quantity, a sum over many rollups: these may pass 2^53, up to 1e21) as
 * a number of micro-units, only when the number holds it exactly and its neighbours too (a safe integer, |x| < 2^53):
 * throws a RangeError otherwise, never rounds. Pricing reads the bigint; this is for amounts the money rule bounds.
 */
export function microsOfBigint(micros: bigint): Micros {
  if (micros > BigInt(Number.MAX_SAFE_INTEGER) || micros < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`${micros} micro-units do not fit exactly in a number`);
  }
  return asMicros(Number(micros));
}

/**
 * A bigint count of micro-units as the nearest number, exact below 2^53 and rounded above: only for a figure that is
 * shown and never priced again (an alert crossing's usage, which the crossing was decided on as a bigint).
 */
export const nearestMicrosOfBigint = (micros: bigint): number => Number(micros);
