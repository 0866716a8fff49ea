import { MICROS } from "@billing/shared";
import { roundToMinorUnit } from "../../money/currency.js";
import type { ChargeModel } from "./types.js";

/** PER_UNIT: usage × price, exact, rounded once. */
export const perUnitCharge: ChargeModel<"PER_UNIT"> = ({ pricing, quantityMicros, currency }) => ({
  subtotalMicros: roundToMinorUnit(quantityMicros * BigInt(pricing.priceMicros), MICROS, currency),
  quantityMicros,
  unitPriceMicros: pricing.priceMicros,
});
