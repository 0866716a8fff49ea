import {
  invoice,
  invoiceIdParam,
  invoiceList,
  invoiceListQuery,
  invoicePreviewRequest,
  invoicePreviewResponse,
  invoiceSimulation,
  invoiceSimulationRequest,
  MAX_SIMULATED_CYCLES,
  MAX_SIMULATION_UNITS,
} from "@billing/shared";
import { z } from "zod";
import { billingNow } from "../billing-clock.js";
import { badRequest, notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { filtersIssued, filtersLife } from "../repositories/invoice-list-filter.js";
import { finalizeDraft } from "../services/billing/drafts.js";
import { previewInvoice } from "../services/billing/preview.js";
import { SIMULATION_LIMITS, simulateInvoices } from "../services/billing/simulate.js";
import { scopeOf } from "../services/call-scope.js";
import { invoicesInCollection } from "../services/collection/requests.js";
import { completeInvoices, readInvoice } from "../services/invoices/changes.js";
import { router } from "../trpc.js";

const tags = ["invoices"];

/** Invoices are written by the billing engine (POST /billing-runs), never by callers. */
export const invoicesRouter = router({
  preview: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/invoices/preview",
        tags,
        summary: "The invoice a contract's current cycle would produce, stored nowhere",
        description:
          "404 when no cycle of the contract contains `at` (before its first cycle, from its end on, or no " +
          "billable product).",
      },
      finance: true,
    })
    .input(invoicePreviewRequest)
    .output(invoicePreviewResponse)
    .mutation(async ({ ctx, input }) => ({
      invoice: await previewInvoice(
        ctx.repositories,
        ctx.accountId,
        input.contractId,
        input.at ? new Date(input.at) : billingNow(ctx.accountId),
        ctx.clientGone,
      ),
    })),

  simulate: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/invoices/simulate",
        tags,
        summary: "The invoices other terms would have produced over a past period, stored nowhere",
        description:
          "Prices the customer's stored usage and measurements over [startDate, endDate) with the terms given (or " +
          "the contract's, the given ones replacing them), no credits applied, and compares with what the customer's " +
          `finalized invoices of the same cycles charged. At most ${MAX_SIMULATED_CYCLES} cycles (400 on endDate ` +
          `beyond) and ${MAX_SIMULATION_UNITS.toLocaleString("en")} units of work: the tiers priced (cycles × ` +
          "prices × tiers, 1 for a price without tiers) plus the days of usage read (meters × days × the " +
          "customer's aliases); beyond, 400 naming the limit, `endDate` and the terms, before anything is read. " +
          `Past ${SIMULATION_LIMITS.timeBudgetMs / 1000} s (much stored usage) it stops with a 409. Read scope is ` +
          "enough: nothing is written.",
      },
      readOnly: true,
    })
    .input(invoiceSimulationRequest)
    .output(invoiceSimulation)
    .mutation(({ ctx, input }) => simulateInvoices(ctx.repositories, ctx.accountId, input, { stop: ctx.clientGone })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/invoices",
        tags,
        summary:
          "List invoices, oldest first, optionally of one customer or contract, status, payment state, issue date",
        description:
          "`dunning=active`: the invoices being collected (at most 100, one page; other filters ignored). " +
          "`customerId` takes a customer's id or externalId. `status`, `billingStatus` and `overdue` combine with " +
          "each other and with `customerId`, not with `contractId` (400). `issuedFrom`/`issuedTo` bound the issue " +
          "date (`finalizedAt`, drafts left out) and combine with `customerId`, `status` and `billingStatus`, not " +
          "with `contractId` or `overdue` (400). Paged: pass `nextCursor` as `cursor`.",
      },
    })
    .input(invoiceListQuery)
    .output(invoiceList)
    .query(async ({ ctx, input }) => {
      if (input.dunning === "active") {
        const invoices = await invoicesInCollection(scopeOf(ctx));
        return { invoices, total: invoices.length, hasMore: false };
      }
      if (input.contractId !== undefined && filtersLife(input)) {
        throw badRequest(
          "status, billingStatus and overdue filter an account's or a customer's invoices, not a contract's",
          [{ path: "contractId", message: "cannot be combined with status, billingStatus or overdue" }],
        );
      }
      if (filtersIssued(input) && (input.contractId !== undefined || input.overdue !== undefined)) {
        const path = input.contractId !== undefined ? "contractId" : "overdue";
        throw badRequest(
          "issuedFrom and issuedTo bound an account's or a customer's invoices, without contractId or overdue",
          [{ path, message: "cannot be combined with issuedFrom or issuedTo" }],
        );
      }
      // A customer's externalId names it here too, as in GET /customers/{customerId} and GET /usage.
      const customer = input.customerId && (await ctx.repositories.customers.get(ctx.accountId, input.customerId));
      const filter = customer ? { ...input, customerId: customer.id } : input;
      const { items, ...page } = await ctx.repositories.invoices.list(ctx.accountId, filter);
      return { invoices: await completeInvoices(scopeOf(ctx), items), ...page };
    }),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/invoices/{invoiceId}",
        tags,
        summary: "Get an invoice by id",
        description: "An invoice a billing run made, with its line items; another account's invoice is a 404.",
      },
    })
    .input(z.object({ invoiceId: invoiceIdParam }))
    .output(z.object({ invoice }))
    .query(async ({ ctx, input }) => {
      const found = await readInvoice(scopeOf(ctx), input.invoiceId);
      if (!found) throw notFound("Invoice");
      return { invoice: found.invoice };
    }),

  finalize: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/invoices/{invoiceId}/finalize",
        tags,
        summary: "Finalize a draft invoice now (body optional)",
        description:
          "Re-prices the draft from the usage stored now, applies the customer's credits in burn order, and gives it " +
          "the account's next number (`INV-000042`). 409 when the invoice is not a DRAFT, or while a change of its " +
          "contract is under way (retry in a moment); `invoice.finalized` fires.",
      },
      finance: true,
    })
    .input(z.strictObject({ invoiceId: invoiceIdParam }))
    .output(z.object({ invoice }))
    .mutation(async ({ ctx, input }) => ({
      invoice: (await finalizeDraft(scopeOf(ctx), input.invoiceId, { at: billingNow(ctx.accountId) })).invoice,
    })),
});
