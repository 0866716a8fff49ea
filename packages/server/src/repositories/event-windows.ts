import type { EventRestore } from "@billing/shared";
import type { Collection, Filter } from "mongodb";
import { toObjectId } from "../db/ids.js";
import { after } from "../db/pagination.js";
import { dayKey } from "../domain/billing/cycles.js";
import type { EventDoc } from "./event-docs.js";
import type { RollupKey } from "./usage-rollups.js";

/** An event of a backfill's window (ofWindow): its rollup key and batch, when it was stored, its void and restore. */
export interface WindowEvent {
  eventId: string;
  ref: string;
  key: RollupKey;
  batchId?: string;
  createdAt: Date;
  voidReason?: string;
  restoreReason?: string;
  /** The backfill that stored it. */
  storedBy?: string;
}

/** What backfills read and write of the events collection (the events repository's, kept apart to stay small). */
export function backfillEventOps(events: Collection<EventDoc>) {
  return {
    /**
     * A page of a backfill's window: one name (these aliases, or any), from ≤ timestamp < to, after the cursor, by
     * (timestamp, _id) (index-served), each event with what its steps decide by (services/backfills.ts picks the
     * events a REPLACE voids, services/backfill-reverts.ts those its revert restores); `next` unless it was the last.
     */
    async ofWindow(
      accountId: string,
      scope: { name: string; aliases?: string[] | undefined; from: Date; to: Date },
      cursor: { timestamp: Date; id: string } | undefined,
      limit: number,
    ): Promise<{ events: WindowEvent[]; next?: { timestamp: Date; id: string } }> {
      const window: Filter<EventDoc> = {
        accountId,
        name: scope.name,
        ...(scope.aliases && { customerAlias: { $in: scope.aliases } }),
        timestamp: { $gte: scope.from, $lt: scope.to },
      };
      const lastId = cursor && toObjectId(cursor.id);
      const filter = lastId ? { $and: [window, after("timestamp", cursor.timestamp, lastId)] } : window;
      const projection = {
        _id: 1,
        ref: 1,
        customerAlias: 1,
        timestamp: 1,
        batchId: 1,
        createdAt: 1,
        voided: 1,
        restored: 1,
        backfillId: 1,
      };
      const docs = await events
        .find(filter as Filter<EventDoc>, { projection })
        .sort({ timestamp: 1, _id: 1 })
        .limit(limit)
        .toArray();
      const last = docs.at(-1);
      const next = docs.length < limit || !last ? undefined : { timestamp: last.timestamp, id: last._id.toHexString() };
      const windowEvents = docs.map((doc) => ({
        eventId: doc._id.toHexString(),
        ref: doc.ref,
        key: { accountId, name: scope.name, alias: doc.customerAlias, day: dayKey(doc.timestamp) },
        ...(doc.batchId && { batchId: doc.batchId.toHexString() }),
        createdAt: doc.createdAt,
        ...(doc.voided && { voidReason: doc.voided.reason }),
        ...(doc.restored && { restoreReason: doc.restored.reason }),
        ...(doc.backfillId && { storedBy: doc.backfillId.toHexString() }),
      }));
      return { events: windowEvents, ...(next && { next }) };
    },

    /** The ids of the events of these refs that the backfill stored (its revert voids them): one page of its events. */
    async storedByBackfill(accountId: string, refs: string[], backfillId: string): Promise<string[]> {
      const docs = await events
        .find({ accountId, ref: { $in: refs } }, { projection: { _id: 1, backfillId: 1 } })
        .toArray();
      return docs.flatMap(({ _id, backfillId: storedBy }) =>
        storedBy?.toHexString() === backfillId ? [_id.toHexString()] : [],
      );
    },

    /**
     * Undoes the event's void whose reason is `voidReason` (a backfill's revert): it counts again in every raw read,
     * `restored` says why and which void it undid. By the whole shard key, as markVoided; a repeat matches nothing.
     */
    async markRestored(
      accountId: string,
      event: { eventId: string; ref: string },
      voidReason: string,
      restore: Omit<EventRestore, "voided">,
    ) {
      const _id = toObjectId(event.eventId);
      if (!_id) return;
      const voided = { _id, accountId, ref: event.ref, "voided.reason": voidReason } as unknown as Filter<EventDoc>;
      const doc = await events.findOne(voided, { projection: { voided: 1 } });
      if (!doc?.voided) return;
      await events.updateOne(voided, {
        $unset: { voided: "" },
        $set: { restored: { ...restore, voided: doc.voided } },
      });
    },
  };
}
