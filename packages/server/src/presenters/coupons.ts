import { type CouponRedemption, toMicros } from "@billing/shared";
import type { AppliedDiscount } from "../domain/billing/discounts.js";

/**
 * A coupon redeemed on a contract as the discounts stage applies it, in micro-units: from the first cycle not ended
 * when it was redeemed, for its duration's cycles (ONCE: 1; FOREVER: every one).
 */
export function redemptionDiscount({ discount, duration, redeemedAt }: CouponRedemption): AppliedDiscount {
  const cycles = duration === "ONCE" ? 1 : duration === "FOREVER" ? undefined : duration.cycles;
  return {
    type: discount.type,
    valueMicros: toMicros(discount.value),
    ...(cycles !== undefined && { cycles }),
    redeemedAt,
  };
}
