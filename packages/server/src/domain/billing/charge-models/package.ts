import { roundToCents } from "../amounts.js";
import type { ChargeModel } from "./types.js";

/** PACKAGE: ⌈usage / packageSize⌉ packages at the price each; no usage, no package. */
export const packageCharge: ChargeModel<"PACKAGE"> = ({ pricing, quantityMicros }) => {
  const size = BigInt(pricing.packageSizeMicros);
  const count = (quantityMicros + size - 1n) / size;
  return {
    subtotalMicros: roundToCents(count * BigInt(pricing.priceMicros), 1n),
    quantityMicros,
    packages: { count, sizeMicros: pricing.packageSizeMicros, priceMicros: pricing.priceMicros },
  };
};
