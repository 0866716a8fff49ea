import { measurement, measurementCreate } from "@billing/shared";
import { z } from "zod";
import { badRequest } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { recordMeasurement } from "../services/ingestion.js";
import { router } from "../trpc.js";
import { requireCustomer } from "./require-customer.js";

const tags = ["measurements"];

export const measurementsRouter = router({
  // An upsert, so 200 whether the day's measurement was created or its value replaced (no successStatus: 201).
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/measurements",
        tags,
        summary: "Record a customer's usage of a meter for a day",
        description:
          "One measurement per customer, meter and day: the first write creates it, later writes for the same day " +
          "replace its value (same id and createdAt). 200 in both cases.",
      },
      rateLimit: "ingest",
    })
    .input(measurementCreate)
    .output(z.object({ measurement }))
    .mutation(async ({ ctx, input: request }) => {
      const input = { ...request, customerId: await requireCustomer(ctx, request.customerId) };
      const meter = await ctx.repositories.meters.getByKey(ctx.accountId, input.meterId);
      if (meter?.aggregation === "UNIQUE_COUNT") {
        throw badRequest("A UNIQUE_COUNT meter counts distinct event values: a measurement cannot set its usage", [
          { path: "meterId", message: "names a UNIQUE_COUNT meter" },
        ]);
      }
      return { measurement: await recordMeasurement(scopeOf(ctx), input) };
    }),
});
