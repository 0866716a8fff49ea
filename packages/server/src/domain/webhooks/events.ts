import { createHash } from "node:crypto";
import type {
  CreditLedgerEntry,
  InvoiceCollectionEvent,
  WebhookEvent,
  WebhookEventData,
  WebhookEventType,
} from "@billing/shared";

/** A change of a resource, as its event: the type and the resource as the API returns it. */
export type ChangeEvent = {
  [Type in WebhookEventType]: { type: Type; data: WebhookEventData[Type] };
}[WebhookEventType];

/**
 * The events of a credit ledger entry: a grant is `credit.granted`; an expiration is `credit.expired`; any entry
 * but a grant (usage, expiration, void) that leaves the balance at 0 is also `credit.depleted`; the rest have none.
 * The request that writes the entry and the sweep apply this one rule, so they publish the same events.
 */
export function creditEventsOf(entry: CreditLedgerEntry): ChangeEvent[] {
  if (entry.type === "Grant") return [{ type: "credit.granted", data: entry }];
  const expired: ChangeEvent[] = entry.type === "Expiration" ? [{ type: "credit.expired", data: entry }] : [];
  return entry.balanceAfterEntry === 0 ? [...expired, { type: "credit.depleted", data: entry }] : expired;
}

/**
 * What each event type announces, exhaustively (a new type does not compile until it is described here): `at`, the
 * instant of the change read from the resource itself, so that every writer of its message agrees; `repeats`, whether
 * the resource has this change again and again (an update: each is its own message) or once in its life; `id`, what
 * names the changed thing when its data has no `id` of its own.
 */
/** A collection step's event names the invoice, the step's kind and its day (or attempt). */
const collectionStepId = ({ invoice, step }: InvoiceCollectionEvent) => `${invoice.id}/${step.kind}/${step.day}`;

interface Change<Data> {
  at: (data: Data) => string;
  repeats: boolean;
  id?: (data: Data) => string;
}
const CHANGES: { [Type in WebhookEventType]: Change<WebhookEventData[Type]> } = {
  "customer.created": { at: (customer) => customer.createdAt, repeats: false },
  "customer.updated": { at: (customer) => customer.updatedAt, repeats: true },
  "meter.created": { at: (meter) => meter.createdAt, repeats: false },
  "meter.updated": { at: (meter) => meter.updatedAt, repeats: true },
  // Once per void: one insert keyed by the event (a backfill's revert may release it, and the event be voided again).
  "event.voided": {
    at: (voided) => voided.voidedAt,
    repeats: false,
    id: ({ eventId, voidedAt }) => `event/${eventId}/${voidedAt}`,
  },
  // Once per backfill: its status becomes COMPLETED or FAILED once.
  "backfill.completed": { at: (done) => done.completedAt ?? done.createdAt, repeats: false },
  "backfill.failed": { at: (done) => done.completedAt ?? done.createdAt, repeats: false },
  // Once per backfill: its revert is claimed once and becomes REVERTED once.
  "backfill.reverted": { at: (done) => done.revert?.completedAt ?? done.createdAt, repeats: false },
  "tax_rate.created": { at: (taxRate) => taxRate.createdAt, repeats: false },
  "tax_rate.updated": { at: (taxRate) => taxRate.updatedAt, repeats: true },
  "contract.created": { at: (contract) => contract.createdAt, repeats: false },
  "contract.deleted": { at: (contract) => contract.deletedAt ?? contract.updatedAt, repeats: false },
  "contract.updated": { at: (contract) => contract.updatedAt, repeats: true },
  "contract.renewed": { at: (contract) => contract.updatedAt, repeats: true },
  "contract.expired": { at: (contract) => contract.updatedAt, repeats: false },
  "contract.terminated": { at: (contract) => contract.updatedAt, repeats: false },
  "contract.migrated": { at: (contract) => contract.updatedAt, repeats: true },
  "contract.seats_changed": { at: (contract) => contract.updatedAt, repeats: true },
  "coupon.created": { at: (coupon) => coupon.createdAt, repeats: false },
  "coupon.archived": { at: (coupon) => coupon.archivedAt ?? coupon.updatedAt, repeats: false },
  // One redemption per slot: its id names it.
  "coupon.redeemed": { at: (redemption) => redemption.redeemedAt, repeats: false },
  // Each reservation is created once and settled once (its settlement's claim is one insert).
  "reservation.created": { at: (reservation) => reservation.createdAt, repeats: false },
  "reservation.settled": { at: (reservation) => reservation.settledAt ?? reservation.createdAt, repeats: false },
  // Time expires it, once (a settled one never does): the sweep finds it past its expiresAt.
  "reservation.expired": { at: (reservation) => reservation.expiresAt, repeats: false },
  "credit.granted": { at: (entry) => entry.createdAt, repeats: false },
  "credit.depleted": { at: (entry) => entry.createdAt, repeats: false },
  "credit.expired": { at: (entry) => entry.createdAt, repeats: false },
  // Once per recurring grant: its cancellation is one insert.
  "credit.recurrence_canceled": { at: (grant) => grant.canceledAt ?? grant.createdAt, repeats: false },
  "invoice.created": { at: (invoice) => invoice.createdAt, repeats: false },
  // A threshold invoice is made once (its id is its cycle's threshold invoice n, one insert).
  "invoice.threshold_reached": { at: (invoice) => invoice.createdAt, repeats: false },
  // Not finalizedAt, the issue date, which a backfill run sets in the past: the write's time, as for paid.
  "invoice.finalized": { at: (invoice) => invoice.updatedAt, repeats: false },
  // Paid and voided happen once in an invoice's life (nothing takes it back from either).
  "invoice.paid": { at: (invoice) => invoice.updatedAt, repeats: false },
  "invoice.voided": { at: (invoice) => invoice.voidedAt ?? invoice.updatedAt, repeats: false },
  "credit_note.created": { at: (creditNote) => creditNote.createdAt, repeats: false },
  // A PROVIDER note's refund ends once, one way or the other.
  "credit_note.refunded": { at: (creditNote) => creditNote.createdAt, repeats: false },
  "credit_note.refund_failed": { at: (creditNote) => creditNote.createdAt, repeats: false },
  // Its id names the adjustment (a later invoice's line of a product, or a credit note): once each.
  "invoice.adjusted": { at: (adjustment) => adjustment.createdAt, repeats: false },
  "plan.created": { at: (plan) => plan.createdAt, repeats: false },
  // The version's own creation: a plan has each version once.
  "plan.version_created": {
    at: (plan) => plan.updatedAt,
    repeats: false,
    id: (plan) => `${plan.id}/v${plan.version}`,
  },
  "plan.archived": { at: (plan) => plan.archivedAt ?? plan.updatedAt, repeats: false },
  "export.completed": { at: (exp) => exp.completedAt ?? exp.createdAt, repeats: false },
  // Collection steps: each once per invoice, kind and day (the dunning step's key says the same).
  "invoice.payment_failed": { at: ({ step }) => step.at, repeats: false, id: collectionStepId },
  "invoice.payment_reminder": { at: ({ step }) => step.at, repeats: false, id: collectionStepId },
  "invoice.marked_uncollectible": { at: ({ step }) => step.at, repeats: false, id: collectionStepId },
  // Each dispute and status of it once: a dispute opened, then won or lost, is two messages.
  "invoice.payment_disputed": {
    at: ({ step }) => step.at,
    repeats: false,
    id: (data) => `${collectionStepId(data)}/${data.step.dispute?.id}/${data.step.dispute?.status}`,
  },
  // Keys may be replaced and a provider connected again: each change is its own message, named by the provider.
  "payment_provider.connected": {
    at: (connection) => connection.updatedAt,
    repeats: true,
    id: ({ provider }) => `payment_provider/${provider}`,
  },
  "payment_provider.disconnected": {
    at: (connection) => connection.updatedAt,
    repeats: true,
    id: ({ provider }) => `payment_provider/${provider}/disconnected`,
  },
  // Each revocation is its own message (a later one moves the moment on), named by the customer.
  "customer.portal_sessions_revoked": {
    at: (revocation) => revocation.revokedAt,
    repeats: true,
    id: ({ customerId }) => `customer/${customerId}/portal_sessions_revoked`,
  },
  // One crossing per alert, customer, threshold and period (the crossing document's key says the same).
  "usage.threshold_crossed": {
    at: (crossing) => crossing.crossedAt,
    repeats: false,
    id: ({ alertId, customerId, threshold, periodStart }) => `${alertId}/${customerId}/${threshold}/${periodStart}`,
  },
};

/** The description of the event's type, typed for its data (TypeScript cannot relate the two through the union). */
const changeOf = <Type extends WebhookEventType>(event: { type: Type; data: WebhookEventData[Type] }) =>
  CHANGES[event.type] as Change<WebhookEventData[Type]>;

/** Whether the resource has this change again and again (each its own message), or once in its life. */
export const repeats = (type: WebhookEventType): boolean => CHANGES[type].repeats;

/** When the change happened. */
export const occurredAt = (event: ChangeEvent): string => changeOf(event).at(event.data);

/**
 * What makes a change one event: the resource, and for a change that repeats the instant of it. The request that
 * made the change and the sweep that recovers it derive the same key, hence the same message id.
 */
function changeKey(event: ChangeEvent) {
  const change = changeOf(event);
  const id = change.id ? change.id(event.data) : (event.data as { id: string }).id;
  return change.repeats ? `${id}@${occurredAt(event)}` : id;
}

/**
 * The `webhook-id`: derived from the account, the type and the change, so a change has one message however many
 * writers record it. Hex after `msg_`: no `.`, which the signed content `id.timestamp.body` must not meet in the id.
 */
export function messageIdOf(accountId: string, event: ChangeEvent): string {
  return `msg_${createHash("sha256")
    .update(`${accountId}/${event.type}/${changeKey(event)}`)
    .digest("hex")
    .slice(0, 32)}`;
}

/**
 * The exact body sent on every attempt: `{ type, timestamp, data }`, serialized once. `timestamp` is when the change
 * occurred, or, for a test account, its clock's time when the change was recorded (`clockTime`).
 */
export function payloadOf(event: ChangeEvent, clockTime = occurredAt(event)): string {
  const body = { type: event.type, timestamp: clockTime, data: event.data } as WebhookEvent;
  return JSON.stringify(body);
}

/** Whether an endpoint subscribed to `type` (no types: every type). */
export const subscribes = (eventTypes: readonly WebhookEventType[], type: WebhookEventType) =>
  eventTypes.length === 0 || eventTypes.includes(type);
