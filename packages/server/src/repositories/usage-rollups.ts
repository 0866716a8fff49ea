import { type Db, type Filter, MongoBulkWriteError } from "mongodb";
import { isDuplicateKeyError, wonInsert } from "../db/duplicate-key.js";
import { mergeRollups, type RolledEvent, type RollupGroup, summarizeEvents } from "../domain/usage/rollup.js";
import { isHeldByWidening, keepsEvery, partialIdOf } from "../domain/usage/widening.js";
import { type DayRollup, latestStoredAt, toDayRollup, toStored, toStoredRollup } from "../presenters/stored-rollups.js";
import type { Hooks } from "./hooks.js";
import {
  compactionsOf,
  foldByNameAndDay,
  LIGHT,
  liveOf,
  type RollupDoc,
  type RollupKey,
  type RollupRead,
  rollupSnapshot,
} from "./usage-rollup-docs.js";

export type { RollupKey };

/** What one partial summarizes: a key's events of one batch. */
export interface Partial {
  key: RollupKey;
  dimensionKeys: string[];
  groups: RollupGroup[];
}

/** An event of a key, for summarizing it again: `batchId` absent when stored before batches were recorded. */
export type KeyEvent = RolledEvent & { batchId?: string };

/** The answer to which of these batches are still open (their partials may be missing, so they wait). */
export type OpenBatches = (batchIds: string[]) => Promise<Set<string>>;

/** Partials one compaction merges at most: its document and its work stay bounded. */
const PARTIALS_PER_COMPACTION = 500;
/** A read is retried while compactions change its days under it; compactions are rare, so this is never reached. */
const MAX_READ_ATTEMPTS = 5;

const keyOf = ({ accountId, name, alias, day }: RollupKey): RollupKey => ({ accountId, name, alias, day });
const compactionId = (key: RollupKey, generation: number) =>
  JSON.stringify([key.accountId, key.name, key.alias, key.day, generation]);

export function createUsageRollupRepository(db: Db, hooks: Hooks) {
  const rollups = db.collection<RollupDoc>("usage_rollups");

  /**
   * Every rollup document matching `filter`, or undefined when the compactions among them changed during the read:
   * a compaction made meanwhile may have deleted partials the read had not reached yet. Compactions are found by
   * a second, light read; the newest of a key is never deleted before a newer one exists, so any change shows.
   */
  async function consistentRead(filter: Filter<RollupDoc>): Promise<RollupDoc[] | undefined> {
    const docs = await rollups.find(filter).toArray();
    const again = await rollups.find(filter).project<Pick<RollupDoc, "_id" | "generation">>(LIGHT).toArray();
    return compactionsOf(docs) === compactionsOf(again) ? docs : undefined;
  }

  /**
   * Deletes the leftovers of a compaction that stopped before its deletes (the partials it lists, the generations
   * before it), all held by the newest: before a newer compaction exists, which would no longer name them as held.
   */
  async function deleteLeftovers(docs: RollupDoc[], newest: RollupDoc | undefined) {
    const generation = newest?.generation ?? 0;
    const superseded = docs.filter((doc) => doc.generation > 0 && doc.generation < generation).map((doc) => doc._id);
    const held = [...(newest?.mergedPartials ?? []), ...superseded];
    if (held.length > 0) await rollups.deleteMany({ _id: { $in: held } });
  }

  /**
   * Stores a key's next compaction (replacing `newest`, holding `merging`), exactly once: its `_id` is derived from
   * the key and its generation, so of concurrent compactions one insert wins and the others change nothing. Then
   * deletes what it holds. Returns whether it was stored and is the newest.
   */
  async function storeCompaction(
    key: RollupKey,
    newest: RollupDoc | undefined,
    merging: RollupDoc[],
    rollup: DayRollup,
    storedAt = latestStoredAt([...(newest ? [newest] : []), ...merging]),
  ): Promise<boolean> {
    const generation = (newest?.generation ?? 0) + 1;
    const next: RollupDoc = {
      _id: compactionId(key, generation),
      ...keyOf(key),
      generation,
      mergedPartials: merging.map((doc) => doc._id),
      ...toStoredRollup(rollup),
      ...(storedAt && { storedAt }),
    };
    if (!(await wonInsert(rollups.insertOne(next)))) return false;
    // Inserted late (the generation it replaces was made and superseded meanwhile): it holds nothing of use.
    const newer = await rollups.findOne({ ...keyOf(key), generation: { $gt: generation } }, { projection: LIGHT });
    if (newer) {
      await rollups.deleteOne({ _id: next._id });
      return false;
    }
    await rollups.deleteMany({ _id: { $in: [...next.mergedPartials, ...(newest ? [newest._id] : [])] } });
    return true;
  }

  /** groupsByDay of one event name, or several (`$in`): name → day → the day's rollups merged. */
  async function rollupsByNameAndDay(
    accountId: string,
    name: string | { $in: string[] },
    aliases: string[],
    fromDay: string,
    toDayExclusive: string,
  ): Promise<Map<string, Map<string, DayRollup>>> {
    if (aliases.length === 0) return new Map();
    const filter = { accountId, name, alias: { $in: aliases }, day: { $gte: fromDay, $lt: toDayExclusive } };
    for (let attempt = 1; attempt <= MAX_READ_ATTEMPTS; attempt += 1) {
      const docs = await consistentRead(filter);
      if (!docs) continue;
      return foldByNameAndDay(docs);
    }
    throw new Error(`usage rollups of ${JSON.stringify(name)} kept changing during ${MAX_READ_ATTEMPTS} reads`);
  }

  return {
    async ensureIndexes() {
      // A customer's usage (account, name, its aliases, a range of days); a key's newer compactions (generation).
      await rollups.createIndex({ accountId: 1, name: 1, alias: 1, day: 1, generation: 1 });
      // The scheduler's walk over partials waiting for compaction.
      await rollups.createIndex({ generation: 1 });
    },

    /**
     * One ingested batch's summaries, one partial per key, derived only from the events this batch stored. Written
     * by the batch, or again by its repair: a partial already written is a duplicate `_id` and is left as it is.
     */
    async addPartials(batchId: string, partials: Partial[]) {
      if (partials.length === 0) return;
      const storedAt = new Date();
      try {
        await rollups.insertMany(
          partials.map(({ key, dimensionKeys, groups }) => ({
            _id: partialIdOf(batchId, key),
            ...keyOf(key),
            generation: 0,
            batchId,
            mergedPartials: [],
            dimensionKeys,
            groups: toStored(groups),
            storedAt,
          })),
          { ordered: false },
        );
      } catch (error) {
        if (!(error instanceof MongoBulkWriteError)) throw error;
        if (![error.writeErrors].flat().every(isDuplicateKeyError)) throw error;
      }
    },

    /**
     * The rollups of one event name under any of `aliases` over the days [fromDay, toDayExclusive), merged per day.
     * Reads every rollup document of those keys (a few per day and alias), then reads which compactions exist again:
     * a compaction made between the two could have deleted partials this read missed, so the read is then repeated.
     */
    async groupsByDay(
      accountId: string,
      name: string,
      aliases: string[],
      fromDay: string,
      toDayExclusive: string,
    ): Promise<Map<string, DayRollup>> {
      return (await rollupsByNameAndDay(accountId, name, aliases, fromDay, toDayExclusive)).get(name) ?? new Map();
    },

    /** groupsByDay of several event names in one read (a simulation's meters): name → day → merged rollup. */
    async groupsByNameAndDay(
      accountId: string,
      names: readonly string[],
      aliases: string[],
      fromDay: string,
      toDayExclusive: string,
    ): Promise<Map<string, Map<string, DayRollup>>> {
      if (names.length === 0) return new Map();
      const name = names.length === 1 ? (names[0] as string) : { $in: [...names] };
      return rollupsByNameAndDay(accountId, name, aliases, fromDay, toDayExclusive);
    },

    /**
     * The rollups of several customers' aliases (a billing batch's) in one consistent read, for their usage reads to
     * be answered from in memory (rollupSnapshot); undefined when it reads nothing.
     */
    async snapshot(accountId: string, read: RollupRead) {
      const { names, aliases, fromDay, toDayExclusive } = read;
      if (names.length === 0 || aliases.length === 0) return undefined;
      const name = names.length === 1 ? (names[0] as string) : { $in: [...names] };
      const filter = { accountId, name, alias: { $in: [...aliases] }, day: { $gte: fromDay, $lt: toDayExclusive } };
      for (let attempt = 1; attempt <= MAX_READ_ATTEMPTS; attempt += 1) {
        const docs = await consistentRead(filter);
        if (docs) return rollupSnapshot(read, docs);
      }
      return undefined;
    },

    /**
     * When the usage of each rollup document of these names, aliases and days was stored (absent: unknown), read
     * light: late usage's signal (services/billing/late-usage.ts), the same documents a usage read reads.
     */
    async storedAtOfDays(
      accountId: string,
      names: readonly string[],
      aliases: string[],
      fromDay: string,
      toDayExclusive: string,
    ): Promise<{ day: string; storedAt?: Date }[]> {
      if (names.length === 0 || aliases.length === 0) return [];
      const name = names.length === 1 ? (names[0] as string) : { $in: [...names] };
      const filter = { accountId, name, alias: { $in: aliases }, day: { $gte: fromDay, $lt: toDayExclusive } };
      return rollups.find(filter).project<{ day: string; storedAt?: Date }>({ _id: 0, day: 1, storedAt: 1 }).toArray();
    },

    /**
     * The keys of one event name after `after` in (alias, day) order, each with the dimension keys its documents
     * kept (undefined: every text property), from up to `limit` documents: a widening's walk. A key whose documents
     * the limit may have cut is left to the next page.
     */
    async keysOfName(
      accountId: string,
      name: string,
      after: { alias: string; day: string } | undefined,
      limit: number,
    ): Promise<{ key: RollupKey; kept: (string[] | undefined)[] }[]> {
      const position = after && {
        alias: { $gte: after.alias },
        $or: [{ alias: { $gt: after.alias } }, { alias: after.alias, day: { $gt: after.day } }],
      };
      const docs = await rollups
        .find({ accountId, name, ...position })
        .project<Pick<RollupDoc, "alias" | "day" | "dimensionKeys">>({ _id: 0, alias: 1, day: 1, dimensionKeys: 1 })
        .sort({ alias: 1, day: 1 })
        .limit(limit)
        .toArray();
      const byKey = new Map<string, { key: RollupKey; kept: (string[] | undefined)[] }>();
      for (const { alias, day, dimensionKeys } of docs) {
        const identity = JSON.stringify([alias, day]);
        const entry = byKey.get(identity) ?? { key: { accountId, name, alias, day }, kept: [] };
        entry.kept.push(dimensionKeys);
        byKey.set(identity, entry);
      }
      const keys = [...byKey.values()];
      return docs.length === limit && keys.length > 1 ? keys.slice(0, -1) : keys;
    },

    /** Up to `limit` keys with partials waiting for compaction (the scheduler's bounded walk). */
    async keysWithPartials(limit: number): Promise<RollupKey[]> {
      const docs = await rollups
        .find({ generation: 0 })
        .project<RollupKey>({ _id: 0, accountId: 1, name: 1, alias: 1, day: 1 })
        .limit(limit)
        .toArray();
      const unique = new Map(docs.map((doc) => [JSON.stringify(keyOf(doc)), keyOf(doc)]));
      return [...unique.values()];
    },

    /**
     * Merges a key's partials into its next compaction, exactly once: the compaction's `_id` is derived from the key
     * and its generation, so of concurrent compactions one insert wins and the others change nothing. Safe after a
     * crash at any step: leftovers of the previous generation are deleted first, and every delete is of documents a
     * compaction already holds. Partials of batches still open wait: while a batch is open none of its partials is
     * merged and deleted, so its repair can tell a partial never written from one merged. Returns whether it merged.
     */
    async compact(key: RollupKey, openBatches: OpenBatches): Promise<boolean> {
      const docs = await consistentRead(keyOf(key));
      if (!docs) return false;
      const { newest, partials } = liveOf(docs);
      await deleteLeftovers(docs, newest);
      const open = await openBatches(partials.flatMap((doc) => doc.batchId ?? []));
      const fresh = partials
        .filter((doc) => doc.batchId === undefined || !open.has(doc.batchId))
        .sort((a, b) => String(a._id).localeCompare(String(b._id)))
        .slice(0, PARTIALS_PER_COMPACTION);
      if (fresh.length === 0) return false;
      const merged = mergeRollups([newest, ...fresh].flatMap((doc) => (doc ? [toDayRollup(doc)] : [])));
      return storeCompaction(key, newest, fresh, merged);
    },

    /**
     * Makes a key's next compaction keep `dimensionKeys`, summarized again from its raw events (`eventsOf`), when
     * some live document of the key dropped one of them: see `domain/usage/widening.ts` for which events it holds.
     * Decided like a compaction (the next generation's `_id`), so it races compactions and other widenings safely.
     * Answers `wide` (nothing to do), `widened`, or `later`: a narrow partial of a batch still open (it stays live
     * until repaired), or a compaction of the key meanwhile; with the events it read. `summarizeAgain` (an event
     * voided, services/event-voids.ts): summarized again even when wide, and `later` unless the compaction holds
     * the batch of the voided event (so the event's count is gone from every live document of the key).
     */
    async widen(
      key: RollupKey,
      dimensionKeys: string[],
      eventsOf: (key: RollupKey) => Promise<KeyEvent[]>,
      openBatches: OpenBatches,
      summarizeAgain?: { holding: string | undefined },
    ): Promise<{ outcome: "wide" | "widened" | "later"; eventsRead: number }> {
      const first = await consistentRead(keyOf(key));
      if (!first) return { outcome: "later", eventsRead: 0 };
      const { newest, partials } = liveOf(first);
      const narrow = [newest, ...partials].filter((doc) => doc && !keepsEvery(doc.dimensionKeys, dimensionKeys));
      if (narrow.length === 0 && !summarizeAgain) return { outcome: "wide", eventsRead: 0 };
      const narrowOpen = await openBatches(narrow.flatMap((doc) => doc?.batchId ?? []));
      if (narrowOpen.size > 0) return { outcome: "later", eventsRead: 0 };
      await deleteLeftovers(first, newest);
      await hooks("rollups.widen", key.alias);
      const events = await eventsOf(key);
      const open = await openBatches([
        ...partials.flatMap((doc) => doc.batchId ?? []),
        ...events.flatMap(({ batchId }) => batchId ?? []),
      ]);
      const later = await consistentRead(keyOf(key));
      const again = later && liveOf(later);
      const eventsRead = events.length;
      if (!again || String(again.newest?._id) !== String(newest?._id)) return { outcome: "later", eventsRead };
      const reads = {
        firstPartials: new Set(partials.map((doc) => String(doc._id))),
        laterPartials: new Set(again.partials.map((doc) => String(doc._id))),
        openBatches: open,
      };
      if (summarizeAgain && !isHeldByWidening(summarizeAgain.holding, key, reads))
        return { outcome: "later", eventsRead };
      const held = events.filter(({ batchId }) => isHeldByWidening(batchId, key, reads));
      const merging = partials.filter((doc) => doc.batchId === undefined || !open.has(doc.batchId));
      const widened = { dimensionKeys, groups: summarizeEvents(held, dimensionKeys) };
      const stored = await storeCompaction(key, newest, merging, widened, new Date());
      return { outcome: stored ? "widened" : "later", eventsRead };
    },
  };
}
