import { MICROS } from "@billing/shared";
import { fixedChargeMicros, lineChargeMicros } from "../amounts.js";
import type { ChargeModel } from "./types.js";

/** ONE_TIME: the price once, never prorated (the engine bills it in the item's first cycle only). */
export const oneTimeCharge: ChargeModel<"ONE_TIME"> = ({ pricing, currency }) => ({
  subtotalMicros: fixedChargeMicros(pricing.priceMicros, currency),
  quantityMicros: MICROS,
  unitPriceMicros: pricing.priceMicros,
});

/** FLAT: the price every cycle, prorated like a commitment when the contract prorates. */
export const flatCharge: ChargeModel<"FLAT"> = ({ pricing, proration, currency }) => ({
  subtotalMicros: lineChargeMicros(Number(MICROS), pricing.priceMicros, proration, currency),
  quantityMicros: MICROS,
  unitPriceMicros: pricing.priceMicros,
});
