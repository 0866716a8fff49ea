import { z } from "zod";
import type { UsageThresholdCrossed } from "./alert.js";
import type { Backfill } from "./backfill.js";
import type { InvoiceCollectionEvent, PaymentProvider, PortalRevocation } from "./collection.js";
import { isWellFormed, LONE_SURROGATE_MESSAGE, pageInfo, pageQuery, resourceRef, text, timestamp } from "./common.js";
import type { Contract } from "./contract.js";
import type { Coupon, CouponRedemption } from "./coupon.js";
import type { CreditLedgerEntry, RecurringGrant } from "./credit.js";
import type { CreditNote } from "./credit-note.js";
import type { Customer } from "./customer.js";
import type { EventVoid } from "./event.js";
import type { Export } from "./export.js";
import type { Invoice, InvoiceAdjustment } from "./invoice.js";
import type { Meter } from "./meter.js";
import type { Plan } from "./plan.js";
import type { Reservation } from "./reservation.js";
import type { TaxRate } from "./tax-rate.js";

/** What each event type carries as `data`: the resource exactly as the API returns it. */
export interface WebhookEventData {
  "customer.created": Customer;
  "customer.updated": Customer;
  "contract.created": Contract;
  "contract.deleted": Contract;
  /** A pause, a resumption or a scheduled termination. */
  "contract.updated": Contract;
  "contract.renewed": Contract;
  "contract.expired": Contract;
  "contract.terminated": Contract;
  /** A plan migration moved the contract to another version of its plan (the contract as moved). */
  "contract.migrated": Contract;
  /** A PER_SEAT product's seats changed (POST /contracts/{id}/seats): the contract, its history has the change. */
  "contract.seats_changed": Contract;
  "coupon.created": Coupon;
  /** No more redemptions; those made keep applying. */
  "coupon.archived": Coupon;
  /** A coupon applied to a contract (POST /contracts/{id}/coupons). */
  "coupon.redeemed": CouponRedemption;
  /** Units of a meter held for a customer (POST /customers/{id}/reservations). */
  "reservation.created": Reservation;
  /** A reservation settled: its usage recorded, the rest freed (POST /reservations/{id}/settle). */
  "reservation.settled": Reservation;
  /** A reservation's TTL passed unsettled: it holds nothing more (announced by the sweep, within about 2 minutes). */
  "reservation.expired": Reservation;
  "credit.granted": CreditLedgerEntry;
  /** The ledger entry that took the customer's balance to 0. */
  "credit.depleted": CreditLedgerEntry;
  /** The `Expiration` entry removing what was left of a grant at its expiry (a recurring grant's period too). */
  "credit.expired": CreditLedgerEntry;
  /** A recurring grant of `POST /credits` canceled: no period after `lastPeriod` is issued. */
  "credit.recurrence_canceled": RecurringGrant;
  "invoice.created": Invoice;
  /**
   * A threshold invoice (contract `billingThresholds`): the cycle's accrued charges reached a threshold; the invoice
   * bills what accrued less what the cycle's earlier threshold invoices billed. Once per threshold invoice.
   */
  "invoice.threshold_reached": Invoice;
  /** A draft became FINALIZED with its number. */
  "invoice.finalized": Invoice;
  /** The invoice as the change that took its `billingStatus` to `Paid` left it. */
  "invoice.paid": Invoice;
  "invoice.voided": Invoice;
  /**
   * Late usage adjusted an issued invoice: a LATE_USAGE line of a later invoice (when that invoice is finalized) or
   * a USAGE_CORRECTION credit note; once per adjustment.
   */
  "invoice.adjusted": InvoiceAdjustment;
  /** A charge of the invoice failed (at finalization, a retry or POST …/collect), or the provider said so. */
  "invoice.payment_failed": InvoiceCollectionEvent;
  /** A reminder step of the account's dunning policy: once per invoice and day. */
  "invoice.payment_reminder": InvoiceCollectionEvent;
  /** The dunning policy's final action `MARK_UNCOLLECTIBLE` was taken. */
  "invoice.marked_uncollectible": InvoiceCollectionEvent;
  /** The provider reported a dispute of a charge of the invoice. */
  "invoice.payment_disputed": InvoiceCollectionEvent;
  "credit_note.created": CreditNote;
  /** A `PROVIDER` credit note's refund was made by the provider (once per note). */
  "credit_note.refunded": CreditNote;
  /** The provider refused a `PROVIDER` credit note's refund (once per note): `providerRefund.failureMessage`. */
  "credit_note.refund_failed": CreditNote;
  /** The account connected a payment provider or replaced its keys (PUT): the connection without its keys. */
  "payment_provider.connected": PaymentProvider;
  /** The account disconnected a payment provider: the connection as it was, `updatedAt` the disconnection. */
  "payment_provider.disconnected": PaymentProvider;
  /** The customer's portal links made until `revokedAt` were revoked (POST …/portal-sessions/revoke). */
  "customer.portal_sessions_revoked": PortalRevocation;
  "meter.created": Meter;
  "meter.updated": Meter;
  /** An event voided (POST /events/{eventId}/void): it counts nowhere from then on; once per event. */
  "event.voided": EventVoid;
  /** A backfill's events are all stored (POST /backfills): once per backfill. */
  "backfill.completed": Backfill;
  /** A backfill stopped (`failure` says why); what it did before stays done. Once per backfill. */
  "backfill.failed": Backfill;
  /** A backfill's revert is done: its events voided, the events it replaced counted again. Once per backfill. */
  "backfill.reverted": Backfill;
  "tax_rate.created": TaxRate;
  /** A rename or the archival. */
  "tax_rate.updated": TaxRate;
  /** A customer's usage of a meter reached an alert's threshold: once per alert, customer, threshold and period. */
  "usage.threshold_crossed": UsageThresholdCrossed;
  "plan.created": Plan;
  /** A new version of the plan: the plan as it reads with that version current. */
  "plan.version_created": Plan;
  "plan.archived": Plan;
  /** An export's file is written (POST /exports): the export, `rows` its rows; `GET /exports/{id}/file` streams it. */
  "export.completed": Export;
}
export type WebhookEventType = keyof WebhookEventData;

export const WEBHOOK_EVENT_TYPES = [
  "customer.created",
  "customer.updated",
  "contract.created",
  "contract.deleted",
  "contract.updated",
  "contract.renewed",
  "contract.expired",
  "contract.terminated",
  "contract.migrated",
  "contract.seats_changed",
  "coupon.created",
  "coupon.archived",
  "coupon.redeemed",
  "reservation.created",
  "reservation.settled",
  "reservation.expired",
  "credit.granted",
  "credit.depleted",
  "credit.expired",
  "credit.recurrence_canceled",
  "invoice.created",
  "invoice.threshold_reached",
  "invoice.finalized",
  "invoice.paid",
  "invoice.voided",
  "invoice.adjusted",
  "invoice.payment_failed",
  "invoice.payment_reminder",
  "invoice.marked_uncollectible",
  "invoice.payment_disputed",
  "payment_provider.connected",
  "payment_provider.disconnected",
  "customer.portal_sessions_revoked",
  "credit_note.created",
  "credit_note.refunded",
  "credit_note.refund_failed",
  "meter.created",
  "meter.updated",
  "event.voided",
  "backfill.completed",
  "backfill.failed",
  "backfill.reverted",
  "tax_rate.created",
  "tax_rate.updated",
  "usage.threshold_crossed",
  "plan.created",
  "plan.version_created",
  "plan.archived",
  "export.completed",
] as const satisfies readonly WebhookEventType[];

export const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: "WebhookEventType" });

/** The body of every webhook: `{ type, timestamp, data }`, typed by `type`. */
export type WebhookEvent = {
  [Type in WebhookEventType]: { type: Type; timestamp: string; data: WebhookEventData[Type] };
}[WebhookEventType];

export const webhookEndpointStatus = z.enum(["ENABLED", "DISABLED"]).meta({ id: "WebhookEndpointStatus" });
export type WebhookEndpointStatus = z.infer<typeof webhookEndpointStatus>;

/**
 * An absolute http(s) URL. Whether `http` and private addresses are allowed is the server's setting
 * (WEBHOOK_ALLOW_PRIVATE_NETWORKS, off by default: https to public addresses only), checked by the server.
 */
export const webhookUrl = z
  .url({ protocol: /^https?$/, error: "must be an absolute https URL" })
  .max(2000)
  .refine(isWellFormed, LONE_SURROGATE_MESSAGE)
  .meta({ description: "Where events are POSTed: https (http only where the server allows private networks)." });

const eventTypes = z
  .array(webhookEventType)
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .meta({ description: "The event types sent to this endpoint; empty: every type." });

export const webhookEndpointCreate = z
  .strictObject({ url: webhookUrl, eventTypes: eventTypes.optional(), description: text(1000).optional() })
  .meta({ id: "WebhookEndpointCreate" });
export type WebhookEndpointCreate = z.infer<typeof webhookEndpointCreate>;

export const webhookEndpointUpdate = z
  .strictObject({
    url: webhookUrl.optional(),
    eventTypes: eventTypes.optional(),
    description: text(1000).optional(),
    status: webhookEndpointStatus.optional(),
  })
  .meta({ id: "WebhookEndpointUpdate" });
export type WebhookEndpointUpdate = z.infer<typeof webhookEndpointUpdate>;

export const webhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(webhookEventType),
    description: z.string().optional(),
    status: webhookEndpointStatus,
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpoint = z.infer<typeof webhookEndpoint>;

export const webhookSecret = z.string().meta({
  description: "`whsec_` and the base64 of 32 random bytes: the Standard Webhooks signing secret. Shown only once.",
});

export const webhookEndpointCreated = z
  .object({ endpoint: webhookEndpoint, secret: webhookSecret })
  .meta({ id: "WebhookEndpointCreated" });
export type WebhookEndpointCreated = z.infer<typeof webhookEndpointCreated>;

export const webhookSecretRotated = z.object({ secret: webhookSecret }).meta({ id: "WebhookSecretRotated" });
export type WebhookSecretRotated = z.infer<typeof webhookSecretRotated>;

export const webhookEndpointIdParam = resourceRef;
export const webhookEndpointListQuery = z.object(pageQuery);
export const webhookEndpointList = z.object({ endpoints: z.array(webhookEndpoint), ...pageInfo });
export type WebhookEndpointList = z.infer<typeof webhookEndpointList>;

export const webhookDeliveryStatus = z.enum(["PENDING", "SUCCEEDED", "FAILED"]).meta({ id: "WebhookDeliveryStatus" });
export type WebhookDeliveryStatus = z.infer<typeof webhookDeliveryStatus>;

export const webhookDelivery = z
  .object({
    id: z.string(),
    messageId: z.string().meta({ description: "The `webhook-id` header: the same on every attempt and resend." }),
    eventType: webhookEventType,
    status: webhookDeliveryStatus,
    attempts: z.number().int().min(0),
    lastStatusCode: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The last attempt's HTTP status; null without an answer." }),
    lastError: z
      .string()
      .nullable()
      .meta({
        description:
          "Why the last attempt got no answer (e.g. no answer within 15 s, connection refused, a name resolving to a " +
          "private address, a signing secret that does not open); null after an answer or before any attempt.",
      }),
    nextAttemptAt: timestamp
      .nullable()
      .meta({ description: "When the next attempt is due; null once SUCCEEDED or FAILED." }),
    createdAt: timestamp,
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof webhookDelivery>;

export const webhookDeliveryListQuery = z.object({ endpointId: webhookEndpointIdParam, ...pageQuery });
export const webhookDeliveryList = z.object({ deliveries: z.array(webhookDelivery), ...pageInfo });
export type WebhookDeliveryList = z.infer<typeof webhookDeliveryList>;
