import { z } from "zod";
import { resourceRef, text, timestamp } from "./common.js";
import { invoice } from "./invoice.js";

/** The payment providers the service can collect through; a new one is a new member and a new provider module. */
export const paymentProviderName = z.enum(["stripe"]).meta({ id: "PaymentProviderName" });
export type PaymentProviderName = z.infer<typeof paymentProviderName>;

/** `PUT /payment-providers/stripe`: the account's Stripe keys, sealed at rest, never shown again. */
export const stripeProviderPut = z.strictObject({
  secretKey: z
    .string()
    .regex(/^(sk|rk)_[A-Za-z0-9_]{8,250}$/, "a Stripe secret or restricted key (sk_… or rk_…)")
    .meta({ description: "A Stripe secret (`sk_…`) or restricted (`rk_…`) key. Sealed at rest; never returned." }),
  webhookSecret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9_+/=]{8,250}$/, "a Stripe webhook signing secret (whsec_…)")
    .meta({ description: "The signing secret of the Stripe webhook endpoint. Sealed at rest; never returned." }),
  apiBase: z
    .url({ protocol: /^https?$/ })
    .max(500)
    .optional()
    .meta({ description: "Where Stripe's API is reached; default `https://api.stripe.com`. For tests and proxies." }),
});
export type StripeProviderPut = z.infer<typeof stripeProviderPut>;

export const paymentProvider = z
  .object({
    provider: paymentProviderName,
    apiBase: z.string(),
    secretKeyLast4: z.string().meta({ description: "The last 4 characters of the secret key, to tell keys apart." }),
    webhookUrl: z.string().meta({ description: "The path Stripe must send this account's events to." }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "PaymentProvider" });
export type PaymentProvider = z.infer<typeof paymentProvider>;

/** A customer's customer at the provider: set by PATCH /customers/{id}, or made by …/payment-provider/sync. */
export const customerPaymentProvider = z
  .strictObject({
    stripeCustomerId: z
      .string()
      .regex(/^cus_[A-Za-z0-9]{1,250}$/, "a Stripe customer id (cus_…)")
      .meta({ description: "The Stripe customer charged for this customer's invoices." }),
  })
  .meta({ id: "CustomerPaymentProvider" });

/** What the provider says of the customer's default payment method, when last looked at. */
export const paymentMethodStatus = z.enum(["NONE", "READY"]).meta({ id: "PaymentMethodStatus" });

export const DUNNING_FINAL_ACTIONS = ["NONE", "PAUSE_CONTRACTS", "MARK_UNCOLLECTIBLE"] as const;
const dunningDay = z.number().int().min(-365).max(365);

/** An account's dunning policy: days counted from an invoice's due date (negative: before it). */
export const dunningPolicy = z
  .strictObject({
    retryDays: z
      .array(dunningDay.min(0))
      .max(10)
      .meta({ description: "Days after the due date on which a failed charge is tried again (0..365)." }),
    reminderDays: z.array(dunningDay).max(10).meta({
      description: "Days from the due date (negative: before it) on which `invoice.payment_reminder` is sent.",
    }),
    finalAction: z
      .enum(DUNNING_FINAL_ACTIONS)
      .meta({ description: "What follows the last step when the invoice is still unpaid." }),
  })
  .meta({ id: "DunningPolicy" });
export type DunningPolicy = z.infer<typeof dunningPolicy>;

export const collectionAttemptStatus = z
  .enum(["PENDING", "SUCCEEDED", "FAILED"])
  .meta({ id: "CollectionAttemptStatus" });

export const collectionAttempt = z
  .object({
    number: z.number().int().min(1).meta({ description: "1 at finalization, then one more per retry." }),
    status: collectionAttemptStatus,
    providerPaymentId: z.string().optional().meta({ description: "The provider's id (Stripe: the PaymentIntent)." }),
    failureMessage: z.string().optional(),
    createdAt: timestamp,
  })
  .meta({ id: "CollectionAttempt" });
export type CollectionAttempt = z.infer<typeof collectionAttempt>;

export const invoiceCollect = z.strictObject({ invoiceId: resourceRef.meta({ description: "The invoice's id." }) });
export const collectResult = z.object({ invoice, attempt: collectionAttempt.optional() });

/** The data of the dunning webhooks: the invoice and the step that was taken. */
export const dunningStep = z.object({
  kind: z.enum(["CHARGE", "RETRY", "REMINDER", "FINAL", "DISPUTE"]),
  day: z.number().int().meta({ description: "Days from the due date the step belongs to (CHARGE: its attempt)." }),
  at: timestamp,
  failureMessage: text(1000).optional(),
  dispute: z
    .object({
      id: text(200).meta({ description: "The dispute's id at the provider." }),
      status: text(100).meta({ description: "The provider's status of the dispute: `needs_response`, `won`, `lost`…" }),
      reason: text(200).optional(),
      paymentId: text(200).meta({ description: "The disputed payment's `transactionId` (the provider's id)." }),
    })
    .optional()
    .meta({ description: "DISPUTE: the provider's dispute of a payment of the invoice." }),
});
export type DunningStep = z.infer<typeof dunningStep>;
export interface InvoiceCollectionEvent {
  invoice: z.infer<typeof invoice>;
  step: DunningStep;
}

/** The longest a customer portal link may live: one day. */
export const MAX_PORTAL_SESSION_SECONDS = 86_400;

/** `POST /customers/{customerId}/portal-sessions`: a signed, expiring link to the customer's own portal pages. */
export const portalSessionCreate = z.strictObject({
  returnUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .meta({ description: "Where the portal's 'Back' link and a finished or canceled payment lead." }),
  expiresIn: z
    .int()
    .min(60)
    .max(MAX_PORTAL_SESSION_SECONDS)
    .optional()
    .meta({ description: "Seconds the link works, 60 to 86400 (24 h); default 3600." }),
});
export type PortalSessionCreate = z.infer<typeof portalSessionCreate>;

export const portalSession = z
  .object({
    url: z.string().meta({
      description:
        "The portal's page for this customer only, signed by the service (no API token in the browser): relative " +
        "to the service unless PUBLIC_URL is set. A changed or expired link answers 401.",
    }),
    expiresAt: timestamp,
  })
  .meta({ id: "PortalSession" });
export type PortalSession = z.infer<typeof portalSession>;

/** `POST /customers/{customerId}/portal-sessions/revoke`: every link of the customer made until now stops working. */
export const portalRevocation = z
  .object({
    customerId: z.string(),
    revokedAt: timestamp.meta({
      description: "Links of this customer made at or before this moment answer 401; links made after it work.",
    }),
  })
  .meta({ id: "PortalRevocation" });
export type PortalRevocation = z.infer<typeof portalRevocation>;
