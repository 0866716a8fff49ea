import {
  contractIdParam,
  coupon,
  couponCodeParam,
  couponCreate,
  couponList,
  couponListQuery,
  couponRedeem,
  couponRedemption,
} from "@billing/shared";
import { z } from "zod";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { archiveCoupon, contractCoupons, createCoupon, redeemCoupon } from "../services/coupons.js";
import { router } from "../trpc.js";

const couponResponse = z.object({ coupon });
const tags = ["coupons"];

export const couponsRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/coupons",
        tags,
        summary: "Create a coupon",
        description:
          "`code` is unique in the account, archived coupons included (409). An AMOUNT discount needs `currency`, " +
          "a PERCENT one refuses it and takes at most 100 (400). Contracts apply it with " +
          "POST /contracts/{contractId}/coupons.",
      },
      successStatus: 201,
    })
    .input(couponCreate)
    .output(couponResponse)
    .mutation(async ({ ctx, input }) => ({ coupon: await createCoupon(scopeOf(ctx), input) })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/coupons",
        tags,
        summary: "List coupons, archived ones too, oldest first",
        description: "Paged: pass `nextCursor` as `cursor` for the next page.",
      },
    })
    .input(couponListQuery)
    .output(couponList)
    .query(async ({ ctx, input }) => {
      const { items, ...page } = await ctx.repositories.coupons.list(ctx.accountId, input);
      return { coupons: items, ...page };
    }),

  archive: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/coupons/{code}/archive",
        tags,
        summary: "Archive a coupon",
        description:
          "It is redeemed no more (409); the contracts that applied it keep their discount. Archiving it again " +
          "changes nothing.",
      },
    })
    .input(couponCodeParam)
    .output(couponResponse)
    .mutation(async ({ ctx, input }) => ({ coupon: await archiveCoupon(scopeOf(ctx), input.code) })),

  redeem: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/contracts/{contractId}/coupons",
        tags,
        summary: "Apply a coupon to a contract",
        description:
          "409 when the coupon is archived, expired (`redeemBy`), used up (`maxRedemptions`, exact under " +
          "concurrent redemptions), already applied to the contract, or an AMOUNT in another currency than the " +
          "contract's. It applies from the first cycle not ended now, for its `duration`, in the discounts stage.",
      },
      successStatus: 201,
    })
    .input(couponRedeem.extend(contractIdParam.shape))
    .output(z.object({ redemption: couponRedemption }))
    .mutation(async ({ ctx, input }) => ({
      redemption: await redeemCoupon(scopeOf(ctx), input.contractId, input.code),
    })),

  ofContract: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/contracts/{contractId}/coupons",
        tags,
        summary: "The coupons applied to a contract, oldest first",
        description: "Each redemption with the discount it gives (as the coupon stood when applied) and its duration.",
      },
    })
    .input(contractIdParam)
    .output(z.object({ redemptions: z.array(couponRedemption) }))
    .query(async ({ ctx, input }) => ({ redemptions: await contractCoupons(scopeOf(ctx), input.contractId) })),
});
