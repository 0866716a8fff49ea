import { creditNoteIdParam, invoiceIdParam } from "@billing/shared";
import { z } from "zod";
import { accountProcedure } from "../procedures.js";
import { creditNoteWithParties, invoiceWithParties } from "../services/documents.js";
import { router } from "../trpc.js";

/**
 * What the document routes read (`GET /invoices/{invoiceId}/pdf` and `/html`, `GET /credit-notes/{creditNoteId}/pdf`):
 * raw HTTP routes (http/documents.ts), since trpc-to-openapi answers JSON only, each run as one call of a procedure
 * below, so it is authenticated, limited and scoped to its account like any other. Not in appRouter: no JSON route.
 */
export const documentsRouter = router({
  invoice: accountProcedure
    .input(z.object({ invoiceId: invoiceIdParam }))
    .query(({ ctx, input }) => invoiceWithParties(ctx.repositories, ctx.accountId, input.invoiceId)),
  creditNote: accountProcedure
    .input(creditNoteIdParam)
    .query(({ ctx, input }) => creditNoteWithParties(ctx.repositories, ctx.accountId, input.creditNoteId)),
});
