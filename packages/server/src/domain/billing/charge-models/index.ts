import { flatCharge, oneTimeCharge } from "./fixed.js";
import { packageCharge } from "./package.js";
import { perSeatCharge } from "./per-seat.js";
import { perUnitCharge } from "./per-unit.js";
import { graduatedCharge, volumeCharge } from "./tiered.js";
import type { Charge, ChargeInput, ChargeModel, ChargePricing, PriceType } from "./types.js";

export type * from "./types.js";

/** What the registry holds of each price type: its model, and the kind of invoice line it makes. */
export type ChargeModels = {
  [T in PriceType]: { charge: ChargeModel<T>; lineKind: "ONE_TIME" | "FLAT" | "USAGE" | "SEATS" };
};

/**
 * One model per price type. Adding a type adds its schema (shared `pricing`), one module and one entry here: the
 * type checker asks for the entry (ChargePricing is derived from the schema, and presenters convert by field name).
 */
export const CHARGE_MODELS: ChargeModels = {
  ONE_TIME: { charge: oneTimeCharge, lineKind: "ONE_TIME" },
  FLAT: { charge: flatCharge, lineKind: "FLAT" },
  PER_UNIT: { charge: perUnitCharge, lineKind: "USAGE" },
  PACKAGE: { charge: packageCharge, lineKind: "USAGE" },
  GRADUATED: { charge: graduatedCharge, lineKind: "USAGE" },
  VOLUME: { charge: volumeCharge, lineKind: "USAGE" },
  PER_SEAT: { charge: perSeatCharge, lineKind: "SEATS" },
};

/** The charge of one line under its price type's model. */
export function chargeOf(input: ChargeInput): Charge {
  // The lookup is by the input's own type, so the model fits the input: TypeScript cannot correlate the two.
  const model = CHARGE_MODELS[input.pricing.type].charge as (input: ChargeInput<ChargePricing>) => Charge;
  return model(input);
}

/** The kind of invoice line a price type makes. */
export const lineKindOf = (type: PriceType) => CHARGE_MODELS[type].lineKind;
