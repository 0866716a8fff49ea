import { type PriceTier, type Pricing, toMicros } from "@billing/shared";
import { unhandled } from "../../unhandled.js";
import { flatCharge, oneTimeCharge } from "./fixed.js";
import { packageCharge } from "./package.js";
import { perUnitCharge } from "./per-unit.js";
import { graduatedCharge, volumeCharge } from "./tiered.js";
import type { Charge, ChargeInput, ChargeModel, ChargePricing, PriceType } from "./types.js";

export type * from "./types.js";

/**
 * One model per price type. Adding a type adds its schema (shared), its ChargePricing member (types.ts), one module
 * and one entry here: the type checker asks for the entry, not for a case in chargePricingOf.
 */
const MODELS: { [T in PriceType]: ChargeModel<T> } = {
  ONE_TIME: oneTimeCharge,
  FLAT: flatCharge,
  PER_UNIT: perUnitCharge,
  PACKAGE: packageCharge,
  GRADUATED: graduatedCharge,
  VOLUME: volumeCharge,
};

/** The charge of one line under its price type's model. */
export function chargeOf(input: ChargeInput): Charge {
  // The lookup is by the input's own type, so the model fits the input: TypeScript cannot correlate the two.
  const model = MODELS[input.pricing.type] as (input: ChargeInput<ChargePricing>) => Charge;
  return model(input);
}

/** A product's price as the API states it (decimal USD and units), in the engine's micro-units. */
export function chargePricingOf(pricing: Pricing): ChargePricing {
  const tiersOf = (tiers: PriceTier[]) =>
    tiers.map(({ upTo, unitPrice, flatPrice = 0 }) => ({
      upToMicros: upTo === null ? null : toMicros(upTo),
      unitPriceMicros: toMicros(unitPrice),
      flatPriceMicros: toMicros(flatPrice),
    }));
  switch (pricing.type) {
    case "PACKAGE":
      return {
        type: pricing.type,
        priceMicros: toMicros(pricing.price),
        packageSizeMicros: toMicros(pricing.packageSize),
      };
    case "GRADUATED":
    case "VOLUME":
      return { type: pricing.type, tiers: tiersOf(pricing.tiers) };
    case "ONE_TIME":
    case "FLAT":
    case "PER_UNIT":
      return { type: pricing.type, priceMicros: toMicros(pricing.price) };
    default:
      return unhandled(pricing, "price type");
  }
}
