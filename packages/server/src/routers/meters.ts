import { meter, meterCreate, meterIdParam, meterList, meterListQuery, meterUpdate } from "@billing/shared";
import { z } from "zod";
import { notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { createMeter, renameMeter } from "../services/meters.js";
import { router } from "../trpc.js";

const meterResponse = z.object({ meter });
const tags = ["meters"];

export const metersRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/meters",
        tags,
        summary: "Create a meter: how events of a name become usage",
        description:
          "`key` is unique in the account (409): the meterId of measurements and the catalogProductId of products. " +
          "A meter counts every matching event already stored.",
      },
      successStatus: 201,
    })
    .input(meterCreate)
    .output(meterResponse)
    .mutation(async ({ ctx, input }) => ({ meter: await createMeter(scopeOf(ctx), input) })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/meters",
        tags,
        summary: "List meters, oldest first",
        description: "Paged: pass `nextCursor` as `cursor` for the next page.",
      },
    })
    .input(meterListQuery)
    .output(meterList)
    .query(async ({ ctx, input }) => {
      const { items, ...page } = await ctx.repositories.meters.list(ctx.accountId, input);
      return { meters: items, ...page };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/meters/{meterId}",
        tags,
        summary: "Get a meter by id or key",
        description: "Named by its service id or by the `key` it was created with.",
      },
    })
    .input(z.object({ meterId: meterIdParam }))
    .output(meterResponse)
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.meters.get(ctx.accountId, input.meterId);
      if (!found) throw notFound("Meter");
      return { meter: found };
    }),

  update: accountProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/meters/{meterId}",
        tags,
        summary: "Rename a meter (displayName only)",
        description:
          "How a meter counts never changes: an invoice already issued stays explained by the meter it was priced " +
          "with.",
      },
    })
    .input(meterUpdate.extend({ meterId: meterIdParam }))
    .output(meterResponse)
    .mutation(async ({ ctx, input }) => ({ meter: await renameMeter(scopeOf(ctx), input.meterId, input.displayName) })),
});
