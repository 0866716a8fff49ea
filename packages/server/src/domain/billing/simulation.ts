import { fromMicros } from "@billing/shared";

/**
 * A simulation's totals from the invoices' amounts in micro-units (each whole cents, so every sum is exact): what the
 * simulated terms charge, what the finalized invoices charged, and the difference (negative: the terms cost less).
 */
export function simulationTotals(simulatedMicros: number[], actualMicros: number[]) {
  const sum = (amounts: number[]) => amounts.reduce((total, amount) => total + amount, 0);
  const simulated = sum(simulatedMicros);
  const actual = sum(actualMicros);
  return {
    simulatedTotal: fromMicros(simulated),
    actualTotal: fromMicros(actual),
    difference: fromMicros(simulated - actual),
  };
}
