import {
  creditNoteCreate,
  creditNoteIdParam,
  creditNoteList,
  creditNoteListQuery,
  creditNoteResponse,
} from "@billing/shared";
import { notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { createCreditNote, listCreditNotes } from "../services/credit-notes.js";
import { router } from "../trpc.js";
import { requireCustomer } from "./require-customer.js";

const tags = ["credit-notes"];

export const creditNotesRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/credit-notes",
        tags,
        summary: "Credit part of a finalized invoice back",
        description:
          "`OFFSET` lowers the invoice's `amountDue` (at most it); `CREDITS` grants the amount to the customer as " +
          "a `Grant` ledger entry with `creditNoteId` (at most what was paid plus the credits the invoice used, " +
          "less earlier `CREDITS` and `PROVIDER` notes); `PROVIDER` refunds it through the payment provider (at most " +
          "what it collected on the invoice, less earlier refunds; `providerRefund` tells how it stands). " +
          "409 when the invoice is not FINALIZED or the amount passes its limit. " +
          "Numbered `CN-000001`, `CN-000002`, … per account, with no gap.",
      },
      successStatus: 201,
      finance: true,
    })
    .input(creditNoteCreate)
    .output(creditNoteResponse)
    .mutation(async ({ ctx, input }) => ({ creditNote: await createCreditNote(scopeOf(ctx), input, new Date()) })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/credit-notes",
        tags,
        summary: "List credit notes, oldest first, optionally of one invoice or customer",
        description: "`customerId` takes a customer's id or externalId. Paged: pass `nextCursor` as `cursor`.",
      },
    })
    .input(creditNoteListQuery)
    .output(creditNoteList)
    .query(async ({ ctx, input }) => {
      const customerId = input.customerId && (await requireCustomer(ctx, input.customerId));
      const { items, ...page } = await listCreditNotes(scopeOf(ctx), { ...input, customerId });
      return { creditNotes: items, ...page };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/credit-notes/{creditNoteId}",
        tags,
        summary: "Get a credit note by id",
        description: "With its number, invoice, customer, amount, reason and refund; another account's is a 404.",
      },
    })
    .input(creditNoteIdParam)
    .output(creditNoteResponse)
    .query(async ({ ctx, input }) => {
      const found = await ctx.repositories.creditNotes.get(ctx.accountId, input.creditNoteId);
      if (!found) throw notFound("Credit note");
      return { creditNote: found };
    }),
});
