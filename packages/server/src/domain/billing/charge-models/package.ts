import { roundToMinorUnit } from "../../money/currency.js";
import type { ChargeModel } from "./types.js";

/** PACKAGE: ⌈usage / packageSize⌉ packages at the price each; no usage, no package. */
export const packageCharge: ChargeModel<"PACKAGE"> = ({ pricing, quantityMicros, currency }) => {
  const size = BigInt(pricing.packageSizeMicros);
  const count = (quantityMicros + size - 1n) / size;
  return {
    subtotalMicros: roundToMinorUnit(count * BigInt(pricing.priceMicros), 1n, currency),
    quantityMicros,
    packages: { count, sizeMicros: pricing.packageSizeMicros, priceMicros: pricing.priceMicros },
  };
};
