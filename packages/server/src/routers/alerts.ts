import { alert, alertCreate, alertIdParam, alertList, alertListQuery } from "@billing/shared";
import { z } from "zod";
import { notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { createAlert } from "../services/alerts/alerts.js";
import { scopeOf } from "../services/call-scope.js";
import { router } from "../trpc.js";

const alertResponse = z.object({ alert });
const tags = ["alerts"];

export const alertsRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/alerts",
        tags,
        summary: "Alert when a customer's usage of a meter reaches thresholds in a period",
        description:
          "Each threshold reached sends one `usage.threshold_crossed` webhook per customer and period, within " +
          "seconds of the ingestion that reached it. No `customerId`: every customer. An unknown meter or customer " +
          "is 404; an account holds at most 100 alerts (409).",
      },
      successStatus: 201,
    })
    .input(alertCreate)
    .output(alertResponse)
    .mutation(async ({ ctx, input }) => ({ alert: await createAlert(scopeOf(ctx), input) })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/alerts",
        tags,
        summary: "List alerts, oldest first",
        description: "Paged: pass `nextCursor` as `cursor` for the next page.",
      },
    })
    .input(alertListQuery)
    .output(alertList)
    .query(async ({ ctx, input }) => {
      const { items, ...page } = await ctx.repositories.alerts.list(ctx.accountId, input);
      return { alerts: items, ...page };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/alerts/{alertId}",
        tags,
        summary: "Get an alert",
        description: "Another account's alert is 404, as one that does not exist.",
      },
    })
    .input(alertIdParam)
    .output(alertResponse)
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.alerts.get(ctx.accountId, input.alertId);
      if (!found) throw notFound("Alert");
      return { alert: found };
    }),

  delete: accountProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/alerts/{alertId}",
        tags,
        summary: "Delete an alert",
        description: "It fires no more; the crossings it already announced stay announced.",
      },
    })
    .input(alertIdParam)
    .output(alertResponse)
    .mutation(async ({ ctx, input }) => {
      const deleted = await ctx.repositories.alerts.delete(ctx.accountId, input.alertId);
      if (!deleted) throw notFound("Alert");
      return { alert: deleted };
    }),
});
