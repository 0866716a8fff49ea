import { z } from "zod";
import { creditGrant, creditLedgerEntry, creditList, creditListQuery } from "@billing/shared";
import { publishChange } from "../services/webhook-events.js";
import { accountProcedure, router } from "../trpc.js";
import { requireCustomer } from "./require-customer.js";

const tags = ["credits"];

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
      const entry = await ctx.repositories.credits.grant(ctx.accountId, input);
      await publishChange(ctx.repositories, ctx.accountId, ctx.trace.log, { type: "credit.granted", data: entry });
      return { entry };
    }),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/credits",
        tags,
        summary: "List a customer's credit ledger entries, in ledger order",
        description:
          "Oldest entry first. The next page starts after the entry whose id is passed as `cursor` (the last id received); a page shorter than `limit` is the last one. A `cursor` naming no entry of this ledger is 404.",
      },
    })
    .input(creditListQuery)
    .output(creditList)
    .query(async ({ ctx, input: { customerId, ...page } }) => {
      await requireCustomer(ctx, customerId);
      return { entries: await ctx.repositories.credits.list(ctx.accountId, customerId, page) };
    }),
});
