import { z } from "zod";
import { creditGrant, creditLedgerEntry, creditList, creditListQuery } from "@billing/shared";
import { notFound } from "../errors.js";
import type { Repositories } from "../repositories/index.js";
import { accountProcedure, router } from "../trpc.js";

const tags = ["credits"];

/**
 * Both procedures name a customer that must be the caller's: another account's customer looks like a missing one,
 * and a mistyped id is a 404 rather than an empty ledger.
 */
async function requireCustomer(ctx: { repositories: Repositories; accountId: string }, customerId: string) {
  if (!(await ctx.repositories.customers.exists(ctx.accountId, customerId))) throw notFound("Customer");
}

export const creditsRouter = router({
  grant: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/credits",
        tags,
        summary: "Grant credits to a customer",
        description: "Appends a `Grant` entry to the customer's ledger. `contractId`, `invoiceId` and `erpId` are stored as given.",
      },
      successStatus: 201,
    })
    .input(creditGrant)
    .output(z.object({ entry: creditLedgerEntry }))
    .mutation(async ({ ctx, input }) => {
      await requireCustomer(ctx, input.customerId);
      return { entry: await ctx.repositories.credits.grant(ctx.accountId, input) };
    }),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/credits",
        tags,
        summary: "List a customer's credit ledger entries, in ledger order",
        description:
          "Oldest entry first. The next page starts after the entry whose id is passed as `cursor` (the last id received); a page shorter than `limit` is the last one.",
      },
    })
    .input(creditListQuery)
    .output(creditList)
    .query(async ({ ctx, input: { customerId, ...page } }) => {
      await requireCustomer(ctx, customerId);
      return { entries: await ctx.repositories.credits.list(ctx.accountId, customerId, page) };
    }),
});
