import { flatCharge, oneTimeCharge } from "./fixed.js";
import { packageCharge } from "./package.js";
import { perUnitCharge } from "./per-unit.js";
import { graduatedCharge, volumeCharge } from "./tiered.js";
import type { Charge, ChargeInput, ChargeModel, ChargePricing, PriceType } from "./types.js";

export type * from "./types.js";

/**
 * One model per price type. Adding a type adds its schema (shared), its ChargePricing member (types.ts), one module
 * and one entry here: the type checker asks for the entry, and for a case in the contract presenter's two switches.
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
