import { MICROS } from "@billing/shared";
import { roundToMinorUnit } from "../../money/currency.js";
import { roundToMicros } from "../amounts.js";
import type { ChargeModel } from "./types.js";

/**
 * PER_SEAT: the price per seat a cycle, each seat count billed for its days: Σ seats × days × price / the cycle's
 * days, exact, rounded once. The quantity shown is the average seat count (seat-days / the cycle's days, to the
 * micro-unit), so that quantity × price is the amount up to rounding.
 */
export const perSeatCharge: ChargeModel<"PER_SEAT"> = ({ pricing, seats, currency }) => {
  const seatDays = (seats?.spans ?? []).reduce((sum, span) => sum + BigInt(span.seats) * BigInt(span.days), 0n);
  const periodDays = BigInt(seats?.periodDays ?? 1);
  return {
    subtotalMicros: roundToMinorUnit(seatDays * BigInt(pricing.priceMicros), periodDays, currency),
    quantityMicros: BigInt(roundToMicros(seatDays * MICROS, periodDays)),
    unitPriceMicros: pricing.priceMicros,
  };
};
