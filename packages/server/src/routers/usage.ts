import { usageQuery, usageResponse } from "@billing/shared";
import { notFound } from "../domain/errors.js";
import { unitsOf } from "../presenters/money.js";
import { accountProcedure } from "../procedures.js";
import { usageOf } from "../services/usage.js";
import { router } from "../trpc.js";

const asUnits = (micros: bigint) => unitsOf(micros);

export const usageRouter = router({
  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/usage",
        tags: ["usage"],
        summary: "A customer's usage of a meter over UTC days [startDate, endDate)",
        description:
          "Per day, a measurement replaces that day's events. The period is the days added (COUNT, SUM), their " +
          "largest (MAX), the last value in time (LATEST), or the distinct values of the whole period " +
          "(UNIQUE_COUNT).",
      },
    })
    .input(usageQuery)
    .output(usageResponse)
    .query(async ({ ctx, input }) => {
      const customer = await ctx.repositories.customers.get(ctx.accountId, input.customerId);
      if (!customer) throw notFound("Customer");
      const usage = await usageOf(
        ctx.repositories,
        ctx.accountId,
        customer.id,
        input.meterKey,
        input.startDate,
        input.endDate,
        ctx.clientGone,
      );
      return {
        usage: {
          customerId: customer.id,
          meterKey: input.meterKey,
          aggregation: usage.aggregation,
          value: asUnits(usage.valueMicros),
          days: usage.days.map(({ date, valueMicros, source }) => ({ date, value: asUnits(valueMicros), source })),
        },
      };
    }),
});
