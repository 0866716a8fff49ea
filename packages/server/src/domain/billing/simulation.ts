import { daysOf, type UsageToRead } from "../usage/reads.js";
import type { CycleCharge, PlannedInvoice } from "./items.js";

/**
 * The tiers a charge prices in one cycle: each of its item's prices counts its tiers (GRADUATED, VOLUME) or 1 (any
 * other), and a charge without prices (a commitment, a one-time fee, a group's base) 1.
 */
export const pricedTiersOf = ({ item }: Pick<CycleCharge, "item">) =>
  Math.max(
    1,
    item.prices.reduce((total, { pricing }) => total + ("tiers" in pricing ? pricing.tiers.length : 1), 0),
  );

/**
 * What a simulation costs, known from its terms, its period and its customer before any usage is read; linear in
 * each: `pricedTiers`, the tiers priced over all its invoices (cycles × charges × tiers, pricedTiersOf), and
 * `usageDays`, the days of usage read (each meter once over the days its cycles cover, for each alias the customer's
 * events are sent under, at least 1: meters × days × aliases). `units` is their sum, the figure its budget bounds
 * (MAX_SIMULATION_UNITS).
 */
export function simulationWork(cycles: readonly PlannedInvoice[], usage: UsageToRead | undefined, aliases = 1) {
  const pricedTiers = cycles.reduce(
    (total, cycle) => total + cycle.charges.reduce((sum, charge) => sum + pricedTiersOf(charge), 0),
    0,
  );
  const meters = usage?.meters.length ?? 0;
  const usageDays = usage ? meters * daysOf(usage) * Math.max(1, aliases) : 0;
  return { pricedTiers, usageDays, meters, aliases: Math.max(1, aliases), units: pricedTiers + usageDays };
}
export type SimulationWork = ReturnType<typeof simulationWork>;
