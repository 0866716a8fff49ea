import { MICROS_PER_UNIT } from "@billing/shared";
import { lineChargeMicros } from "../billing/amounts.js";
import type { SeatDays } from "../billing/charge-models/types.js";
import { type CoveredDays, type Cycle, contractDays, coveredPart, DAY_MS } from "../billing/cycles.js";
import { asMicros, type Micros } from "../money/micros.js";

/**
 * A change of a PER_SEAT product's seats (POST /contracts/{id}/seats): `quantity` seats from the UTC day
 * `effectiveFrom`. `late`: when it was entered, an invoice already covered that day (a prepaid cycle issued), so that
 * cycle is not billed again: the next cycle's invoice carries the seats added as an adjustment line.
 */
export interface SeatChange {
  product: string;
  quantity: number;
  effectiveFrom: string;
  enteredAt: string;
  late?: boolean;
}

/** What the seat rules read of a contract: its dates and its seat changes. */
export interface SeatTerms {
  startDate: string;
  endDate?: string | undefined;
  seatChanges?: SeatChange[];
}

const dayOf = (instant: string) => Math.floor(Date.parse(instant) / DAY_MS);

/** The changes of one product, in the order they apply: by day, then by when they were entered. */
const changesOf = (contract: SeatTerms, product: string) =>
  (contract.seatChanges ?? [])
    .filter((change) => change.product === product)
    .sort((a, b) => dayOf(a.effectiveFrom) - dayOf(b.effectiveFrom) || a.enteredAt.localeCompare(b.enteredAt));

/**
 * The seat counts over the days of `cycle` the contract (or the version of its terms: `days`) covers, each with its
 * number of days: from `initial`, each change from its day on, except the late changes of this very cycle (its
 * invoice was issued before them: the next one adjusts).
 */
export function seatDays(
  contract: SeatTerms,
  product: string,
  initial: number,
  cycle: Cycle,
  days: CoveredDays = contractDays(contract.startDate, contract.endDate),
): SeatDays {
  const part = coveredPart(cycle, days);
  const from = dayOf(part.from.toISOString());
  const to = from + part.days;
  const inCycle = (day: number) => day >= dayOf(cycle.start.toISOString()) && day < dayOf(cycle.end.toISOString());
  const counted = changesOf(contract, product).filter(
    (change) => !(change.late && inCycle(dayOf(change.effectiveFrom))),
  );
  const spans: { seats: number; days: number }[] = [];
  let seats = initial;
  let day = from;
  for (const change of counted) {
    const at = dayOf(change.effectiveFrom);
    if (at >= to) break;
    if (at > day) {
      spans.push({ seats, days: at - day });
      day = at;
    }
    seats = change.quantity;
  }
  if (to > day) spans.push({ seats, days: to - day });
  return { spans, periodDays: part.periodDays };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const shortDay = (date: Date) => `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}`;

/**
 * An adjustment of a prepaid cycle for seats changed after it was issued: "+3 seats from Apr 11" and its amount, or
 * "−10 seats from Apr 21" and a negative amount (a refund; `seats` negative too).
 */
export interface SeatAdjustment {
  name: string;
  seats: number;
  amountMicros: Micros;
}

/**
 * The adjustments the invoice of a prepaid cycle starting at `cycle.start` carries for the cycle before it
 * (`previous`): each late change there, the seats it added (or removed: a negative amount) billed for its days up to
 * that cycle's end, at the price per seat, each rounded once as a seat line is. Their sum is exactly what the cycle's
 * seat-days bill now less what its invoice billed, but for the rounding of each (docs/decisions.md, "Seats").
 */
export function seatAdjustments(
  contract: SeatTerms,
  product: string,
  initial: number,
  previous: Cycle,
  priceMicros: Micros,
  currency: string,
): SeatAdjustment[] {
  const covered = contractDays(contract.startDate, contract.endDate);
  const part = coveredPart(previous, covered);
  const start = dayOf(part.from.toISOString());
  const end = start + part.days;
  const adjustments: SeatAdjustment[] = [];
  let seats = initial;
  for (const change of changesOf(contract, product)) {
    const at = dayOf(change.effectiveFrom);
    if (at >= end) break;
    const before = seats;
    seats = change.quantity;
    if (!change.late || at < dayOf(previous.start.toISOString())) continue;
    const added = change.quantity - before;
    if (added === 0) continue;
    const days = end - Math.max(at, start);
    const amountMicros = lineChargeMicros(
      Math.abs(added) * MICROS_PER_UNIT,
      priceMicros,
      { days, periodDays: part.periodDays },
      currency,
    );
    adjustments.push({
      name: `${added > 0 ? "+" : "\u2212"}${Math.abs(added)} seats from ${shortDay(new Date(at * DAY_MS))}`,
      seats: added,
      amountMicros: added > 0 ? amountMicros : asMicros(-amountMicros),
    });
  }
  return adjustments;
}

/** The seats of a product on a UTC day: its initial count, changed by every change from that day or before. */
export function seatsOn(contract: SeatTerms, product: string, initial: number, day: Date): number {
  const target = Math.floor(day.getTime() / DAY_MS);
  let seats = initial;
  for (const change of changesOf(contract, product)) {
    if (dayOf(change.effectiveFrom) > target) break;
    seats = change.quantity;
  }
  return seats;
}
