import { fromMicros, toMicros, unitsOfMicros } from "@billing/shared";
import { asMicros, type Micros } from "../domain/money/micros.js";

// The one door between the API's decimals and the server's micro-units (shared/src/money.ts holds the wire rules):
// every layer that takes an amount from a request or gives one back converts here, never with toMicros/fromMicros.

/** An amount as the API states it (at most 6 decimals, checked by the schemas) in micro-units, exactly. */
export const microsOf = (amount: number): Micros => asMicros(toMicros(amount));

/**
 * Micro-units as the API's decimal. Takes a `Micros` or a plain number of micro-units: the pricing engine and the
 * credit ledger still compute on plain numbers named `…Micros` (docs/architecture.md, "Money").
 */
export const amountOf = (micros: Micros | number): number => fromMicros(micros);

/**
 * A quantity of units (usage, a threshold, a measurement: not money) between the API's decimal and micro-units: as a
 * number of micro-units (bounded by the schemas: at most 1e9 units) and back.
 */
export const quantityMicrosOf = (units: number): number => toMicros(units);
export const unitsOfQuantityMicros = (micros: number): number => fromMicros(micros);

/**
 * Micro-units held as a bigint (metered usage, which may pass 2^53) as the API's decimal, rounded once to the nearest
 * double: never `fromMicros(Number(bigint))`, which rounds twice above 2^53.
 */
export const unitsOf = (micros: bigint): number => unitsOfMicros(micros);

/** The API's amounts added exactly, in micro-units (a negative one is taken off): 0.1 + 0.2 = 0.3. */
export const sumAmounts = (amounts: readonly number[]): number =>
  amountOf(asMicros(amounts.reduce((total, amount) => total + toMicros(amount), 0)));
