import { entitlement, entitlementList, entitlementMeterParams, entitlementParams } from "@billing/shared";
import { z } from "zod";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { entitlementOfMeter, entitlementsOf } from "../services/entitlements.js";
import { router } from "../trpc.js";

const tags = ["entitlements"];

export const entitlementsRouter = router({
  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/customers/{customerId}/entitlements",
        tags,
        summary: "May the customer use each meter its contracts name now, and how much is left",
        description:
          "One entry per meter named by a product of the customer's contracts in force (Active, PendingTermination). " +
          "`limit`: the commitment's units of the product (or group) naming the meter; null: unlimited. " +
          "`hasAccess` is false only under the commitment's limitStrategy BLOCK once usage ≥ limit.",
      },
    })
    .input(entitlementParams)
    .output(entitlementList)
    .query(async ({ ctx, input }) => ({ entitlements: await entitlementsOf(scopeOf(ctx), input.customerId) })),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/customers/{customerId}/entitlements/{meterKey}",
        tags,
        summary: "May the customer use this meter now, and how much is left",
        description:
          "404 for an unknown customer or meter. A meter no contract in force names: unlimited, usage of the UTC " +
          "month.",
      },
    })
    .input(entitlementMeterParams)
    .output(z.object({ entitlement }))
    .query(async ({ ctx, input }) => ({
      entitlement: await entitlementOfMeter(scopeOf(ctx), input.customerId, input.meterKey),
    })),
});
