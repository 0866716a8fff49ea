import { DAY_MS } from "@billing/shared";
import type { CommitmentInMicros, ContractInMicros } from "../billing/contract.js";
import { contractDays, coveredPart, cyclesOf, startOfUtcDay } from "../billing/cycles.js";
import { billableItems } from "../billing/items.js";

/** A period of whole UTC days: [start, end), both midnights. */
export interface UsagePeriod {
  start: Date;
  end: Date;
}

/** The UTC day of `at`. */
export const utcDayOf = (at: Date): UsagePeriod => {
  const start = startOfUtcDay(at);
  return { start, end: new Date(start.getTime() + DAY_MS) };
};

/** The UTC calendar month of `at`: the CYCLE of a customer whose contracts do not price the meter. */
export const utcMonthOf = (at: Date): UsagePeriod => ({
  start: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
  end: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)),
});

/** The item of a customer's contract that bills a meter at an instant: its current cycle and its commitment. */
export interface MeterTerms {
  contractId: string;
  /** The item's cycle containing the instant, within the days the contract covers. */
  cycle: UsagePeriod;
  /** Every meter whose usage the item counts against its commitment (a group's products share it). */
  meters: string[];
  commitment: CommitmentInMicros | undefined;
}

/** Contracts in force: Active, or still running until a scheduled termination (PendingTermination). */
const IN_FORCE: ReadonlySet<string> = new Set(["Active", "PendingTermination"]);

/** The commitment of each billable item, in billableItems' order (products, then groups), limitStrategy included. */
const commitmentsOf = (contract: ContractInMicros) => [
  ...(contract.products ?? []).map((product) => product.commitment),
  ...(contract.productGroups ?? []).map((group) => group.commitment),
];

/**
 * The terms under which a customer uses a meter at `at`: the first contract in force at `at` (oldest start, then id)
 * with a product, or a group's product, naming the meter; undefined when none does. Cycles are billing's own.
 */
export function meterTermsAt(
  contracts: readonly ContractInMicros[],
  meterKey: string,
  at: Date,
): MeterTerms | undefined {
  const inForce = contracts
    .filter((contract) => IN_FORCE.has(contract.status))
    .sort((a, b) => Date.parse(a.startDate) - Date.parse(b.startDate) || a.id.localeCompare(b.id));
  for (const contract of inForce) {
    const covered = contractDays(contract.startDate, contract.endDate);
    if (at < covered.from || (covered.to && at >= covered.to)) continue;
    const items = billableItems(contract, covered);
    const index = items.findIndex(({ meters }) => meters.includes(meterKey));
    const item = items[index];
    if (!item) continue;
    for (const cycle of cyclesOf(item.scheduling, covered)) {
      if (cycle.start > at) break;
      if (at >= cycle.end) continue;
      const part = coveredPart(cycle, covered);
      const commitment = commitmentsOf(contract)[index];
      return { contractId: contract.id, cycle: { start: part.from, end: part.to }, meters: item.meters, commitment };
    }
  }
  return undefined;
}
