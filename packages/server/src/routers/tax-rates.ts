import { taxRate, taxRateCreate, taxRateIdParam, taxRateList, taxRateListQuery, taxRateUpdate } from "@billing/shared";
import { z } from "zod";
import { notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { archiveTaxRate, createTaxRate, renameTaxRate } from "../services/tax-rates.js";
import { router } from "../trpc.js";

const taxRateResponse = z.object({ taxRate });
const taxRateIdInput = z.object({ taxRateId: taxRateIdParam });
const tags = ["tax-rates"];

export const taxRatesRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/tax-rates",
        tags,
        summary: "Create a tax rate",
        description:
          "`code` is unique in the account (409), archived rates included. Products, product groups, contracts, " +
          "customers and the account default name rates by code; the most specific level naming any applies.",
      },
      successStatus: 201,
    })
    .input(taxRateCreate)
    .output(taxRateResponse)
    .mutation(async ({ ctx, input }) => ({ taxRate: await createTaxRate(scopeOf(ctx), input) })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/tax-rates",
        tags,
        summary: "List tax rates, archived ones too, oldest first",
        description: "Paged: pass `nextCursor` as `cursor` for the next page.",
      },
    })
    .input(taxRateListQuery)
    .output(taxRateList)
    .query(async ({ ctx, input }) => {
      const { items, ...page } = await ctx.repositories.taxRates.list(ctx.accountId, input);
      return { taxRates: items, ...page };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/tax-rates/{taxRateId}",
        tags,
        summary: "Get a tax rate by id or code",
        description: "Named by its service id or by its `code`.",
      },
    })
    .input(taxRateIdInput)
    .output(taxRateResponse)
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.taxRates.get(ctx.accountId, input.taxRateId);
      if (!found) throw notFound("Tax rate");
      return { taxRate: found };
    }),

  update: accountProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/tax-rates/{taxRateId}",
        tags,
        summary: "Rename a tax rate (name only)",
        description: "A rate that priced an invoice never changes: for another rate, create a new one.",
      },
    })
    .input(taxRateUpdate.extend({ taxRateId: taxRateIdParam }))
    .output(taxRateResponse)
    .mutation(async ({ ctx, input }) => ({ taxRate: await renameTaxRate(scopeOf(ctx), input.taxRateId, input.name) })),

  archive: accountProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/tax-rates/{taxRateId}",
        tags,
        summary: "Archive a tax rate",
        description:
          "No invoice priced afterwards uses it (drafts are re-priced without it; finalized invoices keep it) and no " +
          "terms may name it (400). The rate stays readable; archiving it again changes nothing.",
      },
    })
    .input(taxRateIdInput)
    .output(taxRateResponse)
    .mutation(async ({ ctx, input }) => ({ taxRate: await archiveTaxRate(scopeOf(ctx), input.taxRateId) })),
});
