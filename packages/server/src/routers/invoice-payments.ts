import {
  invoice,
  invoiceAdjustmentList,
  invoiceIdParam,
  invoiceVoid,
  paymentCreate,
  paymentList,
  paymentResponse,
} from "@billing/shared";
import { z } from "zod";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { adjustmentsOf } from "../services/invoices/adjustments.js";
import { paymentsOf, recordPayment } from "../services/invoices/payments.js";
import { voidInvoice } from "../services/invoices/void.js";
import { router } from "../trpc.js";

const tags = ["invoices"];

/**
 * An invoice's payments and its void: services/invoice-settlement.ts decides and writes each; what adjusted it later
 * (late usage: services/invoices/adjustments.ts).
 */
export const invoicePaymentsRouter = router({
  pay: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/invoices/{invoiceId}/payments",
        tags,
        summary: "Record a payment of a finalized invoice",
        description:
          "`amount` > 0 and at most the invoice's `amountDue` (409 naming the amount due). Only a FINALIZED " +
          "invoice takes payments (409 naming its status). A `transactionId` already recorded on the account is " +
          "409: a payment provider's re-sent notification is recorded once. The invoice's `paymentInfo` shows the " +
          "latest payment; `billingStatus` becomes `PartiallyPaid`, or `Paid` when nothing is left due.",
      },
      successStatus: 201,
      finance: true,
    })
    .input(paymentCreate)
    .output(paymentResponse)
    .mutation(({ ctx, input }) => recordPayment(scopeOf(ctx), input, new Date())),

  payments: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/invoices/{invoiceId}/payments",
        tags,
        summary: "An invoice's payments, in the order they were recorded",
        description: "Each payment as recorded (at most 100 per invoice); 404 for another account's invoice.",
      },
    })
    .input(z.object({ invoiceId: invoiceIdParam }))
    .output(paymentList)
    .query(async ({ ctx, input }) => ({ payments: await paymentsOf(scopeOf(ctx), input.invoiceId) })),

  adjustments: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/invoices/{invoiceId}/adjustments",
        tags,
        summary: "What adjusted an issued invoice later (late usage)",
        description:
          "The LATE_USAGE lines of the contract's later FINALIZED invoices that bill usage of this invoice's cycle " +
          "stored after it was issued, then the USAGE_CORRECTION credit notes that credited usage lowered since " +
          "(each once; webhook `invoice.adjusted`). Empty for a draft; 404 for another account's invoice.",
      },
    })
    .input(z.object({ invoiceId: invoiceIdParam }))
    .output(invoiceAdjustmentList)
    .query(async ({ ctx, input }) => ({ adjustments: await adjustmentsOf(scopeOf(ctx), input.invoiceId) })),

  void: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/invoices/{invoiceId}/void",
        tags,
        summary: "Void a draft, or a finalized invoice with nothing paid",
        description:
          "The invoice becomes VOIDED and owes nothing; it keeps its number. The credits it used go back to the " +
          "grants they came from, one `Reversal` ledger entry per grant (a grant expired meanwhile expires again " +
          "at once). 409 naming the invoice's status when it is paid in part or whole, already voided, or a " +
          "`CREDITS` credit note gave credits back for it.",
      },
      finance: true,
    })
    .input(invoiceVoid)
    .output(z.object({ invoice }))
    .mutation(async ({ ctx, input }) => ({ invoice: await voidInvoice(scopeOf(ctx), input, new Date()) })),
});
