import { z } from "zod";
import { pageInfo, pageQuery, timestamp } from "./common.js";
import { serviceDate } from "./contract.js";
import { currencyCode } from "./currency.js";
import { money } from "./money.js";

/** A coupon's code: what a contract is given to apply it, unique in the account (archived coupons included). */
export const couponCode = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "1 to 64 letters, digits, `-` or `_`")
  .meta({ description: "Unique in the account, archived coupons included: 1 to 64 letters, digits, - or _." });

/** What a coupon takes off: PERCENT (0 < value ≤ 100) of each invoice before tax, or AMOUNT off each invoice. */
export const couponDiscount = z
  .strictObject({
    type: z.enum(["PERCENT", "AMOUNT"]),
    value: money.gt(0).meta({ description: "PERCENT: the percent off (at most 100); AMOUNT: the amount off." }),
  })
  .superRefine(({ type, value }, ctx) => {
    if (type === "PERCENT" && typeof value === "number" && value > 100)
      ctx.addIssue({ code: "custom", path: ["value"], message: "a PERCENT discount is at most 100" });
  })
  .meta({ id: "CouponDiscount" });

/** How long a redeemed coupon applies: the first N cycles, for ever, or once (the next cycle only). */
export const couponDuration = z
  .union([z.strictObject({ cycles: z.number().int().min(1).max(1200) }), z.literal("FOREVER"), z.literal("ONCE")])
  .meta({
    id: "CouponDuration",
    description:
      "`{ cycles: N }`: the N cycles from the first one not ended when redeemed; FOREVER; ONCE: that first cycle.",
  });
export type CouponDuration = z.infer<typeof couponDuration>;

export const couponCreate = z
  .strictObject({
    code: couponCode,
    discount: couponDiscount,
    currency: currencyCode
      .optional()
      .meta({ description: "Required with an AMOUNT discount: only contracts of this currency redeem it." }),
    maxRedemptions: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .meta({ description: "At most this many redemptions, exactly, whatever the concurrency." }),
    redeemBy: serviceDate.optional().meta({ description: "Not redeemed after this instant (409)." }),
    duration: couponDuration,
  })
  .superRefine(({ discount, currency }, ctx) => {
    if (discount?.type === "AMOUNT" && currency === undefined)
      ctx.addIssue({ code: "custom", path: ["currency"], message: "required with an AMOUNT discount" });
    if (discount?.type === "PERCENT" && currency !== undefined)
      ctx.addIssue({ code: "custom", path: ["currency"], message: "only with an AMOUNT discount" });
  })
  .meta({ id: "CouponCreate" });
export type CouponCreate = z.infer<typeof couponCreate>;

export const coupon = z
  .object({
    id: z.string(),
    code: couponCode,
    discount: couponDiscount,
    currency: currencyCode.optional(),
    maxRedemptions: z.number().int().optional(),
    redeemBy: timestamp.optional(),
    duration: couponDuration,
    archivedAt: timestamp.nullable().meta({ description: "When archived: no more redemptions (409)." }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "Coupon" });
export type Coupon = z.infer<typeof coupon>;

export const couponCodeParam = z.object({ code: couponCode });
export const couponListQuery = z.object(pageQuery);
export const couponList = z.object({ coupons: z.array(coupon), ...pageInfo });
export type CouponList = z.infer<typeof couponList>;

/** POST /contracts/{id}/coupons. */
export const couponRedeem = z.strictObject({ code: couponCode }).meta({ id: "CouponRedeem" });

/** A coupon applied to a contract: its discount as it stood then, from the first cycle not ended at `redeemedAt`. */
export const couponRedemption = z
  .object({
    id: z.string(),
    code: couponCode,
    contractId: z.string(),
    customerId: z.string(),
    discount: couponDiscount,
    currency: currencyCode.optional(),
    duration: couponDuration,
    redeemedAt: timestamp,
  })
  .meta({ id: "CouponRedemption" });
export type CouponRedemption = z.infer<typeof couponRedemption>;
