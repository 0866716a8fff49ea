import type { Contract } from "@billing/shared";
import { DAY_MS } from "@billing/shared";
import { FULL_PERIOD, type Proration } from "../billing/amounts.js";
import type { ContractLifeFields } from "../billing/contract.js";
import { contractDays, coveredPart, splitShare } from "../billing/cycles.js";
import type { CycleCharge, PlannedInvoice } from "../billing/items.js";

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

type ChargeDays = Pick<CycleCharge, "cycle" | "days">;

/**
 * How a charge is prorated: by its active days (covered by its version of the terms, not paused) of the cycle's days
 * when the contract prorates; else in full, unless an amendment splits the cycle: then by its active days of the
 * days the contract covers in the cycle, so that the parts of a cycle with no pause add up to the cycle billed in
 * full, and a paused day is left out of a part as a prorating contract leaves it out.
 */
export function chargeProration(contract: ContractLifeFields, { cycle, days }: ChargeDays): Proration {
  const part = coveredPart(cycle, days);
  const active = part.days - pausedDays(contract.inactivePeriods, part.from, part.to);
  if (contract.shouldProRateInvoices) return { days: active, periodDays: part.periodDays };
  const split = splitShare(cycle, contractDays(contract.startDate, contract.endDate), days);
  return split ? { days: active, periodDays: split.coveredDays } : FULL_PERIOD;
}

/**
 * The planned invoices without what pauses leave unbilled: a charge prorated by days (the contract prorates, or an
 * amendment splits the cycle) whose days were all paused; without proration, a charge whose cycle was paused on its
 * first covered day. An invoice left without charges is not made.
 */
export function withoutPausedCharges(contract: ContractLifeFields, invoices: PlannedInvoice[]): PlannedInvoice[] {
  const periods = contract.inactivePeriods;
  if (!periods?.length) return invoices;
  const covered = contractDays(contract.startDate, contract.endDate);
  return invoices.flatMap((invoice) => {
    const charges = invoice.charges.filter((charge) => {
      if (contract.shouldProRateInvoices || splitShare(charge.cycle, covered, charge.days))
        return chargeProration(contract, charge).days > 0;
      return !isPausedOn(periods, coveredPart(charge.cycle, covered).from);
    });
    return charges.length > 0 ? [{ ...invoice, charges }] : [];
  });
}
