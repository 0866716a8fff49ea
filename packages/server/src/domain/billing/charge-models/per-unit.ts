import { MICROS } from "@billing/shared";
import { roundToCents } from "../amounts.js";
import type { ChargeModel } from "./types.js";

/** PER_UNIT: usage × price, exact, rounded once. */
export const perUnitCharge: ChargeModel<"PER_UNIT"> = ({ pricing, quantityMicros }) => ({
  subtotalMicros: roundToCents(quantityMicros * BigInt(pricing.priceMicros), MICROS),
  quantityMicros,
  unitPriceMicros: pricing.priceMicros,
});
