import type { Pricing } from "@billing/shared";
import type { Micros } from "../../money/micros.js";
import type { Proration } from "../amounts.js";

/**
 * One tier of a GRADUATED or VOLUME price, in micro-units; `upToMicros` is inclusive, null on the last tier. A flat
 * price is optional, as in the API: a tier without one charges none.
 */
export interface PriceTier {
  upToMicros: number | null;
  unitPriceMicros: Micros;
  flatPriceMicros?: Micros;
}

/** The quantities of a price (units, not money): a PACKAGE's size. Every other field of a price is an amount. */
type QuantityField = "packageSize";

/**
 * One price of the API in micro-units: each amount (a `Micros`) or quantity under its `…Micros` name, its tiers in
 * micro-units.
 */
type InMicros<P> = {
  [K in keyof P as K extends "type" | "tiers" ? K : `${K & string}Micros`]: K extends "type"
    ? P[K]
    : K extends "tiers"
      ? readonly PriceTier[]
      : K extends QuantityField
        ? number
        : Micros;
};
type EachInMicros<P> = P extends unknown ? InMicros<P> : never;

/**
 * A product's price as the engine reads it: the API's price types (shared `pricing`), every amount and quantity in
 * integer micro-units; e.g. `{ type: "PACKAGE", priceMicros, packageSizeMicros }`. Derived, so a new price type
 * needs no member here.
 */
export type ChargePricing = EachInMicros<Pricing>;
export type PriceType = ChargePricing["type"];

export interface ChargeInput<P extends ChargePricing = ChargePricing> {
  pricing: P;
  /** The cycle's usage of the product's meter; ignored by ONE_TIME and FLAT. */
  quantityMicros: bigint;
  /** The share of the cycle the contract covers; only FLAT (a fee per cycle) is prorated, usage never is. */
  proration: Proration;
  /** The contract's ISO 4217 code: the line is rounded to its minor unit. */
  currency: string;
  /** PER_SEAT: each seat count of the cycle with its days, over the cycle's days (seats.ts); absent: no seats. */
  seats?: SeatDays;
}

/** The seats of a cycle: each count for the number of its days that are billed, over the cycle's length in days. */
export interface SeatDays {
  spans: readonly { seats: number; days: number }[];
  periodDays: number;
}

/** What one tier contributed: `amountMicros` is exact to the micro-unit, for display; the line is rounded once. */
export interface TierCharge {
  upToMicros: number | null;
  quantityMicros: bigint;
  unitPriceMicros: Micros;
  flatPriceMicros: Micros;
  amountMicros: Micros;
}

/**
 * A line's charge: `subtotalMicros` in whole minor units of the currency (computed exactly, rounded once, half up),
 * plus its detail.
 */
export interface Charge {
  subtotalMicros: Micros;
  quantityMicros: bigint;
  unitPriceMicros?: Micros;
  tiers?: TierCharge[];
  packages?: { count: bigint; sizeMicros: number; priceMicros: Micros };
}

/** One price type's rule: a pure function of the price, the usage and the proration. */
export type ChargeModel<T extends PriceType> = (input: ChargeInput<Extract<ChargePricing, { type: T }>>) => Charge;
