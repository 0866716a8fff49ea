import {
  collectResult,
  customer,
  customerIdParam,
  invoiceCollect,
  paymentProvider,
  portalRevocation,
  portalSession,
  portalSessionCreate,
  stripeProviderPut,
} from "@billing/shared";
import { z } from "zod";
import { accountProcedure } from "../procedures.js";
import { scopeOf } from "../services/call-scope.js";
import { connectStripe, disconnectProvider, providerConnection } from "../services/collection/connections.js";
import { syncCustomer } from "../services/collection/customer-link.js";
import { createPortalSession, revokePortalSessions } from "../services/collection/portal.js";
import { collectOnRequest } from "../services/collection/requests.js";
import { router } from "../trpc.js";

const tags = ["collection"];
const providerResponse = z.object({ paymentProvider });

/** Collection: the account's payment provider, customers linked to it, and charges on request. */
export const collectionRouter = router({
  putStripe: accountProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/payment-providers/stripe",
        tags,
        summary: "Connect the account to Stripe, or replace its keys",
        description:
          "`secretKey` and `webhookSecret` are sealed at rest (WEBHOOK_SECRET_KEYS) and never returned, logged or " +
          "kept in idempotency answers. Point Stripe's webhook endpoint at `webhookUrl`.",
      },
    })
    .input(stripeProviderPut)
    .output(providerResponse)
    .mutation(async ({ ctx, input }) => ({
      paymentProvider: await connectStripe(scopeOf(ctx), input, new Date()),
    })),

  getStripe: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/payment-providers/stripe",
        tags,
        summary: "The account's Stripe connection, without its keys",
        description: "404 when the account is not connected.",
      },
    })
    .input(z.object({}))
    .output(providerResponse)
    .query(async ({ ctx }) => ({ paymentProvider: await providerConnection(scopeOf(ctx), "stripe") })),

  deleteStripe: accountProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/payment-providers/stripe",
        tags,
        summary: "Disconnect the account from Stripe",
        description: "Its keys are deleted; nothing is charged from then on. 404 when it was not connected.",
      },
    })
    .input(z.object({}))
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(async ({ ctx }) => {
      await disconnectProvider(scopeOf(ctx), "stripe", new Date());
      return { deleted: true as const };
    }),

  syncCustomer: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/customers/{customerId}/payment-provider/sync",
        tags,
        summary: "Link a customer to a customer at the payment provider, creating one when it has none",
        description:
          "Creates the provider's customer when the customer names none (once per customer), then records whether " +
          "it has a default payment method (`paymentMethod`). 409 when no provider is connected.",
      },
    })
    .input(z.object({ customerId: customerIdParam }))
    .output(z.object({ customer }))
    .mutation(async ({ ctx, input }) => ({ customer: await syncCustomer(scopeOf(ctx), input.customerId) })),

  createPortalSession: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/customers/{customerId}/portal-sessions",
        tags,
        summary: "A signed, expiring link to the customer's own billing portal",
        description:
          "The link opens pages served by the service for this customer only, with no API token in the browser: " +
          "its invoices (status, PDF, a Pay button opening the provider's Checkout for the amount due), credit " +
          "notes and credit balance. Signed with the account's portal key (sealed at rest); `expiresIn` seconds " +
          "(60 to 86400, default 3600). A changed or expired link answers 401, another customer's invoice 404.",
      },
      successStatus: 201,
    })
    .input(portalSessionCreate.extend({ customerId: customerIdParam }))
    .output(portalSession)
    .mutation(({ ctx, input: { customerId, ...input } }) =>
      createPortalSession(scopeOf(ctx), customerId, input, ctx.publicUrl, new Date()),
    ),

  revokePortalSessions: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/customers/{customerId}/portal-sessions/revoke",
        tags,
        summary: "Revoke every portal link of the customer made until now",
        description:
          "Links made at or before `revokedAt` answer 401 from now on, before they expire; links made afterwards " +
          "work. Announced as `customer.portal_sessions_revoked`. Repeating it moves `revokedAt` on.",
      },
    })
    .input(z.object({ customerId: customerIdParam }))
    .output(portalRevocation)
    .mutation(({ ctx, input }) => revokePortalSessions(scopeOf(ctx), input.customerId, new Date())),

  collect: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/invoices/{invoiceId}/collect",
        tags,
        summary: "Charge a finalized invoice's amount due now",
        description:
          "One charge through the payment provider, whatever `autoCollect` says: a new attempt, or one left " +
          "pending (a time-out) made again with the same idempotency key. Success records the payment " +
          "(`transactionId` the provider's payment id). 409 naming why when the invoice cannot be charged.",
      },
      finance: true,
    })
    .input(invoiceCollect)
    .output(collectResult)
    .mutation(({ ctx, input }) => collectOnRequest(scopeOf(ctx), input.invoiceId)),
});
