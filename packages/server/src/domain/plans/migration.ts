import type { ContractInMicros } from "../billing/contract.js";
import { contractDays, cyclesOf, defaultScheduling, startOfUtcDay } from "../billing/cycles.js";

/** When a migration moves each contract (shared `migrationEffective`). */
export type MigrationEffective = "NEXT_CYCLE" | "IMMEDIATELY" | { at: string };

/** The first cycle start, among the contract's products' schedules, on or after `from`; undefined when none. */
function nextCycleStart(contract: ContractInMicros, from: Date): Date | undefined {
  const covered = contractDays(contract.startDate, contract.endDate);
  const products = [...(contract.products ?? []), ...(contract.productGroups ?? []).flatMap((group) => group.products)];
  let earliest: Date | undefined;
  for (const product of products) {
    for (const cycle of cyclesOf(product.scheduling ?? defaultScheduling(covered), covered)) {
      if (cycle.start < from) continue;
      if (!earliest || cycle.start < earliest) earliest = cycle.start;
      break;
    }
  }
  return earliest;
}

/**
 * The UTC day from which a migration asked at `askedAt` (the account's billing time) moves this contract to the new
 * version: IMMEDIATELY, that day; NEXT_CYCLE, the first cycle start on or after it (the earliest among the contract's
 * products; that day when the contract has no cycle left); `{ at }`, the day of `at`. Never before the contract's
 * first day: a contract that has not started takes the new version whole. Undefined when the contract ends on or
 * before that day (nothing of it is left to move).
 * Example: monthly on the 1st, asked Apr 15 → IMMEDIATELY Apr 15 (April split 14/16 days), NEXT_CYCLE May 1.
 */
export function migrationDay(
  effective: MigrationEffective,
  askedAt: Date,
  contract: ContractInMicros,
): Date | undefined {
  const today = startOfUtcDay(askedAt);
  const start = startOfUtcDay(new Date(contract.startDate));
  let day: Date;
  if (effective === "IMMEDIATELY") day = today;
  else if (effective === "NEXT_CYCLE") day = nextCycleStart(contract, new Date(Math.max(+today, +start))) ?? today;
  else day = startOfUtcDay(new Date(effective.at));
  if (day < start) day = start;
  const end = contract.endDate ? startOfUtcDay(new Date(contract.endDate)) : undefined;
  return end && end <= day ? undefined : day;
}
