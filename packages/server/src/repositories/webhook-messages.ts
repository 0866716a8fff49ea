import type { WebhookEventType } from "@billing/shared";
import type { Db } from "mongodb";
import { isDuplicateKeyError, wonInserts } from "../db/duplicate-key.js";
import type { Hooks } from "./hooks.js";

/**
 * A change's message, its `_id` the `webhook-id` derived from the change (see domain/webhooks/events.ts), so every
 * writer of one change's message collides on the unique `_id` and one document stands. `payload` is the exact body
 * every attempt sends. `fannedOutAt` is set once a delivery exists for each subscribed endpoint: until then the
 * sweep finishes the work of a request that stopped in between.
 */
export interface MessageDoc {
  _id: string;
  accountId: string;
  type: WebhookEventType;
  payload: string;
  occurredAt: Date;
  createdAt: Date;
  fannedOutAt: Date | null;
}

/** How far the sweep has looked at one source of changes (all changes before `coveredUntil` have their messages). */
interface SweepMarkDoc {
  _id: string;
  coveredUntil: Date;
}

export function createWebhookMessageRepository(db: Db, hooks: Hooks) {
  const messages = db.collection<MessageDoc>("webhookMessages");
  const marks = db.collection<SweepMarkDoc>("webhookSweepMarks");

  return {
    async ensureIndexes() {
      // Point reads by `_id` only: no other index.
    },

    /** Stores the message unless the change has one already (then the stored one stands). */
    async record(message: MessageDoc): Promise<void> {
      await hooks("webhooks.record", message.type);
      try {
        await messages.insertOne(message);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    },

    /**
     * record of several messages in one insert (a billing batch's announcements): the ids stored, by this call or
     * before it. A message whose write fails (its hook, in tests) is left out, for the sweep to record.
     */
    async recordMany(batch: MessageDoc[]): Promise<Set<string>> {
      const writing: MessageDoc[] = [];
      for (const message of batch) {
        try {
          await hooks("webhooks.record", message.type);
          writing.push(message);
        } catch {
          // Left to the sweep, as a failed record of publishChange is.
        }
      }
      if (writing.length > 0) await wonInserts(messages.insertMany(writing, { ordered: false }), writing.length);
      return new Set(writing.map(({ _id }) => _id));
    },

    /** markFannedOut of several messages in one write. */
    async markManyFannedOut(messageIds: string[]) {
      if (messageIds.length > 0)
        await messages.updateMany({ _id: { $in: messageIds } }, { $set: { fannedOutAt: new Date() } });
    },

    async get(messageId: string): Promise<MessageDoc | undefined> {
      return (await messages.findOne({ _id: messageId })) ?? undefined;
    },

    /** These messages, read together (a delivery poll's page), by id. */
    async many(messageIds: string[]): Promise<Map<string, MessageDoc>> {
      if (messageIds.length === 0) return new Map();
      const docs = await messages.find({ _id: { $in: [...new Set(messageIds)] } }).toArray();
      return new Map(docs.map((doc) => [doc._id, doc] as const));
    },

    /** Only ever set to a time, never back to null: a lost concurrent write leaves it set all the same. */
    async markFannedOut(messageId: string) {
      await messages.updateOne({ _id: messageId }, { $set: { fannedOutAt: new Date() } });
    },

    async sweepMark(source: string): Promise<Date | undefined> {
      return (await marks.findOne({ _id: source }))?.coveredUntil;
    },

    /**
     * A hint of where the next sweep starts: a lost or older write only makes a sweep read more, never skip a change.
     */
    async setSweepMark(source: string, coveredUntil: Date) {
      await marks.updateOne({ _id: source }, { $set: { coveredUntil } }, { upsert: true });
    },
  };
}
