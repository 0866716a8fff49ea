import { DAY_MS, type Event, type EventIngestResult, type EventInput, type EventVoid } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import type { Counter } from "prom-client";
import { duplicateKeyIndexes } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { toObjectId } from "../db/ids.js";
import { type AfterId, afterId, type MigrationProgress, pagedMigration, walkById } from "../db/paged-migration.js";
import { after, resolveIdCursor } from "../db/pagination.js";
import { dayKey } from "../domain/billing/cycles.js";
import { duplicateRefs, firstOfEachRef, rollupPartials } from "../domain/usage/batch.js";
import { dataOf, type EventDoc, type MeteredEvent, toDoc, toEvent } from "./event-docs.js";
import { backfillEventOps } from "./event-windows.js";
import type { Hooks } from "./hooks.js";
import type { createUsageRollupRepository, KeyEvent, Partial, RollupKey } from "./usage-rollups.js";

export type { MeteredEvent };

/**
 * An open batch: written before its events, deleted once its partials are written. While it exists its partials
 * are never compacted, so a repair can rebuild exactly the ones missing.
 */
interface BatchDoc {
  _id: ObjectId;
  accountId: string;
  startedAt: Date;
}

/**
 * How old an open batch must be before the scheduler repairs it: far longer than one call's three writes take, so
 * the batch itself has stopped writing (it refuses to write its partials past half of this).
 */
export const BATCH_REPAIR_AFTER_MS = 10 * 60_000;

/**
 * How far the rollups of events stored before batches were recorded (by a version without rollups) have come: `after`
 * is the last event rolled up, in `_id` order; `done` once none is left. One document, `_id` MIGRATION_ID.
 */
type MigrationDoc = MigrationProgress<AfterId<ObjectId>>;
const MIGRATION_ID = "events-before-batches";
/**
 * Events one migration step rolls up. Constant: a step starts where the last one ended, so every step over the same
 * events makes the same pages, and a page's partials (named by its first event) are written once however often it
 * is redone (a crash before the progress was saved, two instances, a progress update lost).
 */
export const EVENTS_PER_MIGRATION_STEP = 1000;

export interface EventPeriodQuery {
  startTime: string;
  endTime: string;
  eventName?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The rollup dimension keys of each event name (what its meters need), read when a batch is summarized. */
export type DimensionKeysByEventName = (accountId: string, eventNames: string[]) => Promise<Map<string, string[]>>;

/**
 * The rollup partials of the events one batch stored (domain rollupPartials), keeping the dimensions the name's meters
 * need now (a meter created meanwhile finds them missing and reads those days' events).
 */
async function partialsOf(
  accountId: string,
  docs: EventDoc[],
  dimensionKeysByEventName: DimensionKeysByEventName,
): Promise<Partial[]> {
  const counted = docs.filter((doc) => !doc.voided);
  const dimensionKeys = await dimensionKeysByEventName(
    accountId,
    counted.map(({ name }) => name),
  );
  const events = counted.map((doc) => ({
    name: doc.name,
    alias: doc.customerAlias,
    id: doc._id.toHexString(),
    timestamp: doc.timestamp,
    data: dataOf(doc.data),
  }));
  return rollupPartials(accountId, events, dimensionKeys);
}

/**
 * `stored` counts the events the repository stores (the service's `billing_events_ingested_total`); `rollups`
 * receives the partial aggregates of every batch, beside its events, keeping what `dimensionKeysByEventName` says.
 */
export function createEventRepository(
  db: Db,
  stored: Counter,
  hooks: Hooks,
  rollups: ReturnType<typeof createUsageRollupRepository>,
  dimensionKeysByEventName: DimensionKeysByEventName,
) {
  const events = db.collection<EventDoc>("events");
  const batches = db.collection<BatchDoc>("event_batches");
  const migrations = db.collection<MigrationDoc>("event_rollup_migrations");
  const rollupMigration = pagedMigration(migrations, MIGRATION_ID);
  /** Once every event before batches is rolled up it stays so: remembered, so usage reads stop asking. */
  let everyEventRolledUp = false;
  // `null` matches a missing field, as an equality the (batchId, _id) index serves.
  const beforeBatches = (after: ObjectId | undefined) =>
    ({ batchId: null, ...afterId(after) }) as unknown as Filter<EventDoc>;

  /** The query of a period's events after the cursor, in the order of the index (accountId, timestamp, _id). */
  async function inPeriod(accountId: string, query: Omit<EventPeriodQuery, "limit">) {
    const scope: Filter<EventDoc> = {
      accountId,
      timestamp: { $gte: new Date(query.startTime), $lt: new Date(query.endTime) },
      ...(query.eventName !== undefined && { name: query.eventName }),
    };
    const last = await resolveIdCursor(events, scope, query.cursor);
    const filter = last ? { $and: [scope, after("timestamp", last.timestamp, last._id)] } : scope;
    return events.find(filter as Filter<EventDoc>).sort({ timestamp: 1, _id: 1 });
  }

  return {
    async ensureIndexes() {
      // The ref is the idempotency key: this index, not a read before the write, keeps concurrent re-sends single.
      await events.createIndex({ accountId: 1, ref: 1 }, { unique: true });
      await events.createIndex({ accountId: 1, timestamp: 1, _id: 1 });
      await events.createIndex({ accountId: 1, name: 1, timestamp: 1, _id: 1 });
      // One customer's usage of one meter: equality on account, name and aliases, in time order within a range.
      await events.createIndex({ accountId: 1, name: 1, customerAlias: 1, timestamp: 1, _id: 1 });
      // A repair reads the events of one batch; the migration walks the events that have none, in _id order.
      await events.createIndex({ batchId: 1, _id: 1 });
      // The scheduler's walk over batches left open.
      await batches.createIndex({ startedAt: 1 });
    },

    async get(accountId: string, eventId: string): Promise<Event | undefined> {
      const doc = await findOwned(events, accountId, toObjectId(eventId));
      return doc ? toEvent(doc) : undefined;
    },

    /**
     * The events of one name sent under any of a customer's aliases with from ≤ timestamp < to, in time order,
     * streamed (a period may hold millions). The (accountId, name, customerAlias, timestamp) index serves it.
     * Once `stop` aborts (the caller's client has gone), no further page is fetched: the stream throws its reason.
     */
    async *ofCustomer(
      accountId: string,
      name: string,
      aliases: string[],
      from: Date,
      to: Date,
      stop?: AbortSignal,
    ): AsyncGenerator<MeteredEvent> {
      if (aliases.length === 0) return;
      const cursor = events
        .find(
          { accountId, name, customerAlias: { $in: aliases }, timestamp: { $gte: from, $lt: to } },
          { projection: { _id: 1, timestamp: 1, data: 1, voided: 1 } },
        )
        .sort({ timestamp: 1, _id: 1 });
      // Checked between the driver's pages, not passed to it: an abort during a socket read closes the connection.
      for await (const doc of cursor) {
        if (!doc.voided) yield { timestamp: doc.timestamp, data: dataOf(doc.data) };
        if (cursor.bufferedCount() > 0) continue;
        await hooks("events.page", accountId);
        stop?.throwIfAborted();
      }
    },

    /**
     * Every event of one rollup key (name, alias, UTC day) with the batch that stored it, voided ones left out: what a
     * widening summarizes again (a day of one alias; the (accountId, name, customerAlias, timestamp) index serves it).
     */
    async ofRollupKey({ accountId, name, alias, day }: RollupKey): Promise<KeyEvent[]> {
      const from = new Date(`${day}T00:00:00.000Z`);
      const to = new Date(from.getTime() + DAY_MS);
      const docs = await events
        .find(
          { accountId, name, customerAlias: alias, timestamp: { $gte: from, $lt: to } },
          { projection: { _id: 1, timestamp: 1, data: 1, batchId: 1, voided: 1 } },
        )
        .toArray();
      return docs.flatMap(({ _id, timestamp, data, batchId, voided }) =>
        voided
          ? []
          : [
              {
                id: _id.toHexString(),
                timestamp,
                data: dataOf(data),
                ...(batchId && { batchId: batchId.toHexString() }),
              },
            ],
      );
    },

    /** The event's stored fields a void reads (its rollup key and batch), when the account owns it. */
    async toVoid(accountId: string, eventId: string) {
      const doc = await findOwned(events, accountId, toObjectId(eventId));
      if (!doc) return undefined;
      const key = { accountId, name: doc.name, alias: doc.customerAlias, day: dayKey(doc.timestamp) };
      return { key, ref: doc.ref, ...(doc.batchId && { batchId: doc.batchId.toHexString() }) };
    },

    ...backfillEventOps(events),

    /**
     * Marks the event voided (after its claim won): every read of raw events leaves it out from now on. By `_id` with
     * the account and the ref: the whole shard key, so on a cluster it reaches the one shard holding the event.
     */
    async markVoided(accountId: string, event: { eventId: string; ref: string }, voided: Omit<EventVoid, "eventId">) {
      const _id = toObjectId(event.eventId);
      // Marked once: a repeat (the worker redoing a void) matches nothing and changes nothing.
      const unmarked = { _id, accountId, ref: event.ref, voided: null } as unknown as Filter<EventDoc>;
      if (_id) await events.updateOne(unmarked, { $set: { voided } });
    },

    /**
     * Stores each ref once: refs already stored, or repeated within the batch, come back as duplicates. `backfillId`:
     * the backfill whose step stores them (its revert finds them by it).
     */
    async ingest(accountId: string, inputs: EventInput[], backfillId?: string): Promise<EventIngestResult> {
      const now = new Date();
      const batchId = new ObjectId();
      await batches.insertOne({ _id: batchId, accountId, startedAt: now });
      const storedBy = backfillId ? toObjectId(backfillId) : undefined;
      const docs = firstOfEachRef(inputs).map((input) => toDoc(accountId, batchId, input, now, storedBy));

      // Unordered: one existing ref must not stop the rest of the batch from being written.
      let alreadyStored = new Set<number>();
      try {
        await events.insertMany(docs, { ordered: false });
      } catch (error) {
        alreadyStored = duplicateKeyIndexes(error);
      }

      const storedDocs = docs.filter((_, index) => !alreadyStored.has(index));
      await hooks("events.partials", accountId);
      // Past this the scheduler may be repairing the batch from its events: leave the partials to it.
      if (Date.now() - now.getTime() > BATCH_REPAIR_AFTER_MS / 2) throw new Error("event batch took too long");
      // Only the events this batch stored: a ref stored before (or by a concurrent batch) is in its own partial.
      await rollups.addPartials(
        batchId.toHexString(),
        await partialsOf(accountId, storedDocs, dimensionKeysByEventName),
      );
      await batches.deleteOne({ _id: batchId });
      const duplicates = duplicateRefs(
        inputs,
        storedDocs.map((doc) => doc.ref),
      );
      stored.inc(inputs.length - duplicates.length);
      return { stored: inputs.length - duplicates.length, duplicates };
    },

    /**
     * Whether every event has rollups: false while events stored before batches were recorded (by a version without
     * rollups) wait for `rollUpEventsBeforeBatches`. Usage is read from the raw events until then.
     */
    async everyEventRolledUp(): Promise<boolean> {
      if (everyEventRolledUp) return true;
      const migration = await migrations.findOne({ _id: MIGRATION_ID });
      const waiting =
        !migration?.done && (await events.findOne(beforeBatches(migration?.after), { projection: { _id: 1 } }));
      everyEventRolledUp = !waiting;
      return everyEventRolledUp;
    },

    /**
     * One step of the migration: the rollup partials of the next EVENTS_PER_MIGRATION_STEP events stored before
     * batches were recorded, each page's partials named by its first event (so written once, see the constant),
     * then the progress (db/paged-migration.ts). Returns how many events it rolled up (0: none left, and the migration
     * is marked done).
     */
    async rollUpEventsBeforeBatches(): Promise<number> {
      const rollUp = async (page: EventDoc[]) => {
        for (const accountId of new Set(page.map((doc) => doc.accountId))) {
          const ofAccount = page.filter((doc) => doc.accountId === accountId);
          const origin = `before-batches:${page[0]?._id.toHexString()}:${accountId}`;
          await rollups.addPartials(origin, await partialsOf(accountId, ofAccount, dimensionKeysByEventName));
        }
      };
      const pages = walkById((after) => events.find(beforeBatches(after)), EVENTS_PER_MIGRATION_STEP, rollUp);
      return rollupMigration.step(pages);
    },

    /** Which of these batches are still open (their partials may be missing): compaction leaves their partials. */
    async openBatches(batchIds: string[]): Promise<Set<string>> {
      // Partials of events stored before batches name no batch: none of them can be open.
      const ids = [...new Set(batchIds)].filter((id) => /^[0-9a-f]{24}$/.test(id)).map((id) => new ObjectId(id));
      if (ids.length === 0) return new Set();
      const open = await batches.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray();
      return new Set(open.map(({ _id }) => _id.toHexString()));
    },

    /**
     * Writes the partials of up to `limit` batches left open for BATCH_REPAIR_AFTER_MS (the call died, or its
     * partial insert failed, after its events were stored), from the events each stored, then closes them. None of
     * an open batch's partials has been compacted, so a partial it wrote is a duplicate `_id` and the rest are
     * exactly the ones never written. Returns how many batches it closed.
     */
    async repairOpenBatches(now: Date, limit: number): Promise<number> {
      const stale = await batches
        .find({ startedAt: { $lt: new Date(now.getTime() - BATCH_REPAIR_AFTER_MS) } })
        .limit(limit)
        .toArray();
      for (const { _id, accountId } of stale) {
        // At most one call's events (1,000): the repair of one batch is bounded like its call.
        // The batch id is unique across accounts: its events are the account's.
        const stored = await events.find({ batchId: _id }).toArray();
        await rollups.addPartials(_id.toHexString(), await partialsOf(accountId, stored, dimensionKeysByEventName));
        await batches.deleteOne({ _id });
      }
      return stale.length;
    },

    /** Events with startTime ≤ timestamp < endTime, by timestamp then id; the cursor is the last id received. */
    async query(accountId: string, query: EventPeriodQuery): Promise<Event[]> {
      const docs = await (await inPeriod(accountId, query)).limit(query.limit).toArray();
      return docs.map(toEvent);
    },

    /**
     * The same events as one query left open, fetched `batchSize` at a time as the caller reads on (an export):
     * the engine's work for the query is done once, not once a page. The caller closes it.
     */
    async readPeriod(accountId: string, query: Omit<EventPeriodQuery, "limit">, batchSize: number) {
      return (await inPeriod(accountId, query)).batchSize(batchSize).map(toEvent);
    },
  };
}
