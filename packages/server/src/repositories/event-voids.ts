import type { AuditActor, EventVoid } from "@billing/shared";
import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import { iso, toObjectId } from "../db/ids.js";
import type { RollupKey } from "./usage-rollups.js";

/**
 * The void of one event (`POST /events/{eventId}/void`): `_id` the event's id, so of two voids of one event one insert
 * wins (the race is decided here, never by the event's update). Kept for ever: the audit of who voided it and why.
 * `appliedAt` null until the event's rollup key was summarized again without it (services/event-voids.ts).
 */
interface EventVoidDoc {
  _id: string;
  accountId: string;
  /** The rollup key that counted the event: what is summarized again without it. */
  key: RollupKey;
  /** The event's ref: with the account, the events' shard key (its mark reaches one shard). */
  ref: string;
  /** The `POST /events` call that stored the event (absent: stored before batches were recorded). */
  batchId?: string;
  reason: string;
  voidedAt: Date;
  voidedBy: AuditActor;
  appliedAt: Date | null;
}

export type StoredEventVoid = Omit<EventVoidDoc, "_id" | "voidedAt" | "appliedAt"> & {
  eventId: string;
  voidedAt: Date;
  appliedAt: Date | null;
};

export const presentEventVoid = ({ eventId, reason, voidedAt, voidedBy }: StoredEventVoid): EventVoid => ({
  eventId,
  reason,
  voidedAt: iso(voidedAt),
  voidedBy,
});

const toStored = ({ _id, ...fields }: EventVoidDoc): StoredEventVoid => ({ eventId: _id, ...fields });

export function createEventVoidRepository(db: Db) {
  const voids = db.collection<EventVoidDoc>("event_voids");
  return {
    async ensureIndexes() {
      // The walk over voids not applied yet (a crash, a batch still open when the void was made).
      await voids.createIndex({ appliedAt: 1 });
    },

    /** Records the void, once per event: false when the event was voided already (by this call's repeat or another). */
    async claim(accountId: string, { eventId, ...fields }: StoredEventVoid): Promise<boolean> {
      return wonInsert(voids.insertOne({ _id: eventId, ...fields, accountId, appliedAt: null }));
    },

    async get(accountId: string, eventId: string): Promise<StoredEventVoid | undefined> {
      if (!toObjectId(eventId)) return undefined;
      const doc = await voids.findOne({ _id: eventId });
      return doc && doc.accountId === accountId ? toStored(doc) : undefined;
    },

    /** Up to `limit` voids whose rollups were not summarized again yet, oldest first. */
    async pending(limit: number): Promise<StoredEventVoid[]> {
      const docs = await voids.find({ appliedAt: null }).limit(limit).toArray();
      return docs.map(toStored).sort((a, b) => a.voidedAt.getTime() - b.voidedAt.getTime());
    },

    /**
     * Removes the event's void of this reason (a backfill's revert restored the event, which records the void it
     * undid): the event may be voided again. A repeat, or another void since, removes nothing.
     */
    async release(accountId: string, eventId: string, reason: string) {
      await voids.deleteOne({ _id: eventId, accountId, reason });
    },

    async markApplied(eventId: string, at: Date) {
      await voids.updateOne({ _id: eventId, appliedAt: null }, { $set: { appliedAt: at } });
    },
  };
}
