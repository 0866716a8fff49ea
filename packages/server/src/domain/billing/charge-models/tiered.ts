import { MICROS } from "@billing/shared";
import { roundToMinorUnit } from "../../money/currency.js";
import { asMicros, ZERO_MICROS } from "../../money/micros.js";
import { roundToMicros } from "../amounts.js";
import type { ChargeModel, PriceTier, TierCharge } from "./types.js";

/** A tier's charge for `quantityMicros` of its units, flat price included, exact (micro-units × 1e6). */
function tierCharge(tier: PriceTier, quantityMicros: bigint): { exact: bigint; detail: TierCharge } {
  const flatPriceMicros = tier.flatPriceMicros ?? ZERO_MICROS;
  const exact = quantityMicros * BigInt(tier.unitPriceMicros) + BigInt(flatPriceMicros) * MICROS;
  return {
    exact,
    detail: { ...tier, flatPriceMicros, quantityMicros, amountMicros: asMicros(roundToMicros(exact, MICROS)) },
  };
}

/**
 * GRADUATED: each unit at the unit price of the tier it falls in, plus the flat price of every tier reached. A
 * tier is reached when usage passes its lower bound: usage exactly at a tier's `upTo` does not reach the next one,
 * and no usage reaches none (0).
 */
export const graduatedCharge: ChargeModel<"GRADUATED"> = ({ pricing, quantityMicros, currency }) => {
  const charges: { exact: bigint; detail: TierCharge }[] = [];
  let lower = 0n;
  for (const tier of pricing.tiers) {
    if (quantityMicros <= lower) break;
    const upper = tier.upToMicros === null ? quantityMicros : BigInt(tier.upToMicros);
    charges.push(tierCharge(tier, (quantityMicros < upper ? quantityMicros : upper) - lower));
    lower = upper;
  }
  const exact = charges.reduce((sum, charge) => sum + charge.exact, 0n);
  return {
    subtotalMicros: roundToMinorUnit(exact, MICROS, currency),
    quantityMicros,
    tiers: charges.map(({ detail }) => detail),
  };
};

/**
 * VOLUME: every unit at the unit price of the tier the whole usage falls in (`upTo` inclusive), plus that tier's
 * flat price. No usage is no charge.
 */
export const volumeCharge: ChargeModel<"VOLUME"> = ({ pricing, quantityMicros, currency }) => {
  if (quantityMicros === 0n) return { subtotalMicros: ZERO_MICROS, quantityMicros, tiers: [] };
  const tier = pricing.tiers.find(({ upToMicros }) => upToMicros === null || quantityMicros <= BigInt(upToMicros));
  // The schema makes the last tier open-ended, so a tier is always found; this guards hand-built prices.
  if (!tier) throw new RangeError("the last tier of a VOLUME price must have no upTo");
  const { exact, detail } = tierCharge(tier, quantityMicros);
  return {
    subtotalMicros: roundToMinorUnit(exact, MICROS, currency),
    quantityMicros,
    unitPriceMicros: tier.unitPriceMicros,
    tiers: [detail],
  };
};
