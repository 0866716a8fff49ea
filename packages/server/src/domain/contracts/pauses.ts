import type { Contract } from "@billing/shared";
import { DAY_MS } from "@billing/shared";
import type { ContractLifeFields } from "../billing/contract.js";
import { contractDays, coveredPart } from "../billing/cycles.js";
import type { PlannedInvoice } from "../billing/items.js";

type Periods = Contract["inactivePeriods"];

const dayNumber = (value: string | Date) => Math.floor(new Date(value).getTime() / DAY_MS);

/** How many UTC days of [from, to) the contract was paused (Inactive) on. */
export function pausedDays(periods: Periods, from: Date, to: Date): number {
  const first = dayNumber(from);
  const last = dayNumber(to);
  return (periods ?? []).reduce((total, period) => {
    const start = Math.max(first, dayNumber(period.from));
    const end = Math.min(last, period.to ? dayNumber(period.to) : Number.POSITIVE_INFINITY);
    return total + Math.max(0, end - start);
  }, 0);
}

export const isPausedOn = (periods: Periods, day: Date) =>
  pausedDays(periods, day, new Date(day.getTime() + DAY_MS)) === 1;

/**
 * The planned invoices without what pauses leave unbilled: with `shouldProRateInvoices` a charge whose covered days
 * were all paused (the others are prorated by their active days when priced); without it, a charge whose cycle was
 * paused on its first covered day. An invoice left without charges is not made.
 */
export function withoutPausedCharges(contract: ContractLifeFields, invoices: PlannedInvoice[]): PlannedInvoice[] {
  const periods = contract.inactivePeriods;
  if (!periods?.length) return invoices;
  const covered = contractDays(contract.startDate, contract.endDate);
  return invoices.flatMap((invoice) => {
    const charges = invoice.charges.filter(({ cycle }) => {
      const part = coveredPart(cycle, covered);
      return contract.shouldProRateInvoices
        ? pausedDays(periods, part.from, part.to) < part.days
        : !isPausedOn(periods, part.from);
    });
    return charges.length > 0 ? [{ ...invoice, charges }] : [];
  });
}
