import { MAX_AMOUNT, MICROS_PER_UNIT, type CreditEntryType } from "@billing/shared";
import { conflict } from "./errors.js";

/** A customer's ledger position: the number of entries so far and the balance they add up to, in micro-units. */
export interface LedgerPosition {
  seq: number;
  balanceMicros: number;
}

/**
 * A movement asked of the ledger, in micro-units: a grant of `micros` > 0, or usage of up to `micros` > 0
 * (debited as far as the balance allows).
 */
export interface Movement {
  type: CreditEntryType;
  micros: number;
}

/** The ceiling of a balance: 1e9 USD, so a balance is itself a valid amount and its micro-units stay exact. */
export const MAX_BALANCE_MICROS = MAX_AMOUNT * MICROS_PER_UNIT;

/**
 * The entry a movement makes at a position, following the sign rule (grants positive, usage negative),
 * or undefined when usage finds a zero balance. The balance never goes below zero nor above the ceiling: a grant
 * that would pass it is a conflict, not bad input: valid in itself, it is refused by the balance it meets (and may
 * be taken once usage has spent some).
 */
export function nextEntry(position: LedgerPosition, movement: Movement) {
  if (!Number.isSafeInteger(movement.micros) || movement.micros <= 0) {
    throw new RangeError(`a movement is a positive whole number of micro-units, not ${movement.micros}`);
  }
  const amountMicros = movement.type === "Grant" ? movement.micros : -Math.min(movement.micros, position.balanceMicros);
  if (amountMicros === 0) return undefined;
  const balanceAfterMicros = position.balanceMicros + amountMicros;
  if (balanceAfterMicros > MAX_BALANCE_MICROS) {
    throw conflict(`amount would take the customer's credit balance above ${MAX_AMOUNT} USD`, [
      { path: "amount", message: `would take the balance above ${MAX_AMOUNT} USD` },
    ]);
  }
  return { type: movement.type, seq: position.seq + 1, amountMicros, balanceAfterMicros };
}
