import { z } from "zod";
import { pageInfo, pageQuery, resourceRef, serviceId, timestamp } from "./common.js";
import { currencyCode } from "./currency.js";
import { money } from "./money.js";

/** Credit notes one invoice takes at most: its change log (read whole on every change) stays small. */
export const MAX_CREDIT_NOTES_PER_INVOICE = 100;

export const creditNoteReason = z
  .enum(["DUPLICATE", "PRODUCT_UNSATISFACTORY", "ORDER_CHANGE", "OTHER", "USAGE_CORRECTION"])
  .meta({
    id: "CreditNoteReason",
    description:
      "`USAGE_CORRECTION`: made by a billing run when usage of the invoice's cycle was lowered after it was issued " +
      "(late usage, with `adjusts`); one made by hand has none and is not counted as a correction. `ORDER_CHANGE` " +
      "is also made by a billing run, on a prepaid invoice, for seats removed after it was issued: the part of " +
      "their refund the next invoice could not take.",
  });
export const creditNoteRefund = z.enum(["OFFSET", "CREDITS", "PROVIDER"]).meta({
  id: "CreditNoteRefund",
  description:
    "`OFFSET` lowers the invoice's `amountDue` (at most it); `CREDITS` grants the amount to the customer as credits " +
    "(at most what was paid plus the credits the invoice used, less earlier `CREDITS` and `PROVIDER` notes); " +
    "`PROVIDER` refunds it through the payment provider that collected it (at most what that provider collected on " +
    "the invoice, less earlier refunds; a refund made at the provider itself is recorded as such a note).",
});

export const providerRefundStatus = z.enum(["PENDING", "SUCCEEDED", "FAILED"]).meta({
  id: "ProviderRefundStatus",
  description:
    "PENDING: logged, the provider's answer not known yet (retried by the collection run with the same " +
    "idempotency key); SUCCEEDED: refunded; FAILED: the provider refused it, or reported it failed or canceled " +
    "after accepting it (`failureMessage`).",
});

/** What a `PROVIDER` credit note refunded through the provider, per payment it collected. */
export const providerRefund = z
  .object({
    provider: z.enum(["stripe"]),
    status: providerRefundStatus,
    origin: z.enum(["API", "PROVIDER"]).meta({
      description: "API: made by POST /credit-notes; PROVIDER: a refund made at the provider (its dashboard).",
    }),
    refunds: z.array(
      z.object({
        paymentId: z.string().meta({ description: "The provider's payment (the payment's `transactionId`)." }),
        amount: money,
        refundId: z.string().optional().meta({ description: "The provider's refund, once made." }),
        failed: z.literal(true).optional().meta({
          description: "The provider reported this refund failed or was canceled after it accepted it.",
        }),
      }),
    ),
    failureMessage: z.string().optional(),
  })
  .meta({ id: "ProviderRefund" });
export type ProviderRefund = z.infer<typeof providerRefund>;

export const creditNoteCreate = z.strictObject({
  invoiceId: resourceRef.meta({ description: "A FINALIZED invoice of the caller's account." }),
  amount: money.gt(0).meta({
    description: "In the invoice's currency, > 0, whole minor units of it (2 decimals in USD, none in JPY).",
  }),
  reason: creditNoteReason,
  refund: creditNoteRefund,
});
export type CreditNoteCreate = z.infer<typeof creditNoteCreate>;

export const creditNote = z
  .object({
    id: serviceId,
    number: z.string().meta({ description: "`CN-` and the account's 6-digit credit note sequence: `CN-000001`." }),
    invoiceId: serviceId,
    customerId: serviceId,
    amount: money,
    currency: currencyCode.meta({ description: "Its invoice's currency." }),
    reason: creditNoteReason,
    refund: creditNoteRefund.meta({
      description: "`CREDITS`: the `Grant` ledger entry it made has `creditNoteId` set, and the credit note's id.",
    }),
    providerRefund: providerRefund.optional().meta({ description: "`PROVIDER` notes only." }),
    adjusts: z
      .object({
        product: z.string(),
        quantity: z.number().meta({ description: "The units the correction takes off (negative)." }),
        foundBy: serviceId.meta({ description: "The invoice whose billing run priced the cycle again." }),
      })
      .optional()
      .meta({ description: "A `USAGE_CORRECTION` made by a billing run: the product of the invoice it corrects." }),
    createdAt: timestamp,
  })
  .meta({ id: "CreditNote" });
export type CreditNote = z.infer<typeof creditNote>;

export const creditNoteResponse = z.object({ creditNote });

export const creditNoteIdParam = z.object({
  creditNoteId: resourceRef.meta({ description: "The credit note's id." }),
});

export const creditNoteListQuery = z.object({
  ...pageQuery,
  invoiceId: resourceRef.optional().meta({ description: "Only this invoice's credit notes." }),
  customerId: resourceRef.optional().meta({ description: "Only this customer's (its id or externalId)." }),
});
export const creditNoteList = z.object({ creditNotes: z.array(creditNote), ...pageInfo });
export type CreditNoteList = z.infer<typeof creditNoteList>;
