import type { WebhookDelivery, WebhookDeliveryStatus, WebhookEventType } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import { isDuplicateKeyError, wonInserts } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { findPage, NEWEST_FIRST, type PageRequest } from "../db/pagination.js";
import type { AttemptResult } from "../domain/webhooks/retry-schedule.js";

/**
 * One message to one endpoint. Unique per (account, endpoint, message), so recording a change twice delivers it once.
 */
export interface DeliveryDoc {
  _id: ObjectId;
  accountId: string;
  endpointId: string;
  messageId: string;
  eventType: WebhookEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  /** Why the last attempt got no answer; absent on deliveries recorded before it was kept. */
  lastError?: string | null;
  /** Null once the delivery is finished (SUCCEEDED or FAILED). */
  nextAttemptAt: Date | null;
  /** The attempt a resend of a finished delivery asked for: that one attempt, with no retries after it. */
  resendAttempt: number | null;
  createdAt: Date;
  updatedAt: Date;
}

const toDelivery = ({
  _id,
  messageId,
  eventType,
  status,
  attempts,
  lastStatusCode,
  lastError,
  nextAttemptAt,
  createdAt,
}: DeliveryDoc): WebhookDelivery => ({
  id: _id.toHexString(),
  messageId,
  eventType,
  status,
  attempts,
  lastStatusCode,
  lastError: lastError ?? null,
  nextAttemptAt: nextAttemptAt && iso(nextAttemptAt),
  createdAt: iso(createdAt),
});

/** A delivery's first attempt, due `now`. */
const newDelivery = (
  fields: Pick<DeliveryDoc, "accountId" | "endpointId" | "messageId" | "eventType">,
  now: Date,
): DeliveryDoc => ({
  _id: new ObjectId(),
  ...fields,
  status: "PENDING",
  attempts: 0,
  lastStatusCode: null,
  lastError: null,
  nextAttemptAt: now,
  resendAttempt: null,
  createdAt: now,
  updatedAt: now,
});

export function createWebhookDeliveryRepository(db: Db) {
  const deliveries = db.collection<DeliveryDoc>("webhookDeliveries");

  return {
    async ensureIndexes() {
      // Once per (message, endpoint), led by the account and the endpoint: the shard key (db/shard-plan.ts) splits an
      // account by endpoint, so that an endpoint's list reaches its own chunks, and must prefix the unique index. It
      // replaces `(messageId, endpointId)` (a message names its account, so both allow the same documents).
      await deliveries.createIndex({ accountId: 1, endpointId: 1, messageId: 1 }, { unique: true });
      await deliveries.dropIndex("messageId_1_endpointId_1").catch(() => undefined);
      // The worker's query: pending deliveries whose attempt is due, earliest first.
      await deliveries.createIndex({ status: 1, nextAttemptAt: 1 });
      // An endpoint's deliveries, newest first.
      await deliveries.createIndex({ accountId: 1, endpointId: 1, _id: -1 });
    },

    /** A first attempt due now, unless the message already has a delivery to this endpoint. */
    async open(fields: Pick<DeliveryDoc, "accountId" | "endpointId" | "messageId" | "eventType">): Promise<void> {
      const doc = newDelivery(fields, new Date());
      try {
        await deliveries.insertOne(doc);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    },

    /** open of several deliveries in one insert, each once per message and endpoint. */
    async openMany(batch: Pick<DeliveryDoc, "accountId" | "endpointId" | "messageId" | "eventType">[]) {
      if (batch.length === 0) return;
      const docs = batch.map((fields) => newDelivery(fields, new Date()));
      await wonInserts(deliveries.insertMany(docs, { ordered: false }), docs.length);
    },

    /** Pending deliveries whose next attempt is due at `now`, earliest first. */
    due(now: Date, limit: number): Promise<DeliveryDoc[]> {
      return deliveries
        .find({ status: "PENDING", nextAttemptAt: { $lte: now } })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .toArray();
    },

    /**
     * Written only by the holder of the attempt's claim (see webhook-attempts.ts), so no two writers race on it; the
     * `attempts` guard keeps a late writer of an earlier attempt from undoing a later one.
     */
    /** The attempt's outcome, with why it got no answer (`error`, null after an answer). */
    async recordAttempt(deliveryId: ObjectId, attempt: number, result: AttemptResult, error: string | null) {
      await deliveries.updateOne(
        { _id: deliveryId, attempts: { $lt: attempt } },
        { $set: { ...result, lastError: error, updatedAt: new Date() } },
      );
    },

    /** The endpoint is gone or disabled: nothing will be sent, and nothing was (`attempts` stays). */
    async abandon(deliveryId: ObjectId) {
      await deliveries.updateOne(
        { _id: deliveryId },
        { $set: { status: "FAILED", nextAttemptAt: null, updatedAt: new Date() } },
      );
    },

    /**
     * Sends the delivery again now. A pending one keeps its retries and only moves its next attempt to now; a finished
     * one gets one more attempt, with the same message id.
     */
    async resend(accountId: string, deliveryId: string): Promise<WebhookDelivery | undefined> {
      const existing = await findOwned(deliveries, accountId, toObjectId(deliveryId));
      if (!existing) return undefined;
      const now = new Date();
      const resendAttempt = existing.status === "PENDING" ? existing.resendAttempt : existing.attempts + 1;
      const updated = await deliveries.findOneAndUpdate(
        { _id: existing._id },
        { $set: { status: "PENDING", nextAttemptAt: now, resendAttempt, updatedAt: now } },
        { returnDocument: "after" },
      );
      return updated ? toDelivery(updated) : undefined;
    },

    /** The endpoint's deliveries, newest first. */
    list(accountId: string, endpointId: string, page: PageRequest) {
      return findPage(deliveries, { accountId, endpointId } as Filter<DeliveryDoc>, page, toDelivery, NEWEST_FIRST);
    },
  };
}
