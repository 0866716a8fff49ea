import { z } from "zod";
import { invoice, invoiceIdParam, invoiceList, invoiceListQuery } from "@billing/shared";
import { notFound } from "../errors.js";
import { accountProcedure, router } from "../trpc.js";

const tags = ["invoices"];

/** Read-only: invoices are written by the billing engine through the repository, never by callers. */
export const invoicesRouter = router({
  list: accountProcedure
    .meta({ openapi: { method: "GET", path: "/invoices", tags, summary: "List invoices, oldest first, optionally of one customer or contract" } })
    .input(invoiceListQuery)
    .output(invoiceList)
    .query(async ({ ctx, input }) => {
      const { items, ...page } = await ctx.repositories.invoices.list(ctx.accountId, input);
      return { invoices: items, ...page };
    }),

  get: accountProcedure
    .meta({ openapi: { method: "GET", path: "/invoices/{invoiceId}", tags, summary: "Get an invoice by id" } })
    .input(z.object({ invoiceId: invoiceIdParam }))
    .output(z.object({ invoice }))
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.invoices.get(ctx.accountId, input.invoiceId);
      if (!found) throw notFound("Invoice");
      return { invoice: found };
    }),
});
