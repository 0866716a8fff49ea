import { createHash } from "node:crypto";
import type { CreditLedgerEntry, WebhookEvent, WebhookEventData, WebhookEventType } from "@billing/shared";

/** A change of a resource, as its event: the type and the resource as the API returns it. */
export type ChangeEvent = {
  [Type in WebhookEventType]: { type: Type; data: WebhookEventData[Type] };
}[WebhookEventType];

/**
 * The event of a credit ledger entry: a grant is `credit.granted`; any other entry (usage, expiration, void) that
 * leaves the balance at 0 is `credit.depleted`; the rest have none. The request that writes the entry and the sweep
 * apply this one rule, so they publish the same events.
 */
export function creditEventOf(entry: CreditLedgerEntry): ChangeEvent | undefined {
  if (entry.type === "Grant") return { type: "credit.granted", data: entry };
  return entry.balanceAfterEntry === 0 ? { type: "credit.depleted", data: entry } : undefined;
}

/** When the change happened, read from the resource itself, so that every writer of its message agrees. */
export function occurredAt(event: ChangeEvent): string {
  switch (event.type) {
    case "customer.updated":
    case "meter.updated":
      return event.data.updatedAt;
    case "contract.deleted":
      return event.data.deletedAt ?? event.data.updatedAt;
    default:
      return event.data.createdAt;
  }
}

/**
 * What makes a change one event: the resource, and for updates the instant of the update. The request that made
 * the change and the sweep that recovers it derive the same key, hence the same message id.
 */
const changeKey = (event: ChangeEvent) =>
  event.type === "customer.updated" || event.type === "meter.updated"
    ? `${event.data.id}@${event.data.updatedAt}`
    : event.data.id;

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

/** The exact body sent on every attempt: `{ type, timestamp, data }`, serialized once. */
export function payloadOf(event: ChangeEvent): string {
  const body = { type: event.type, timestamp: occurredAt(event), data: event.data } as WebhookEvent;
  return JSON.stringify(body);
}

/** Whether an endpoint subscribed to `type` (no types: every type). */
export const subscribes = (eventTypes: readonly WebhookEventType[], type: WebhookEventType) =>
  eventTypes.length === 0 || eventTypes.includes(type);
