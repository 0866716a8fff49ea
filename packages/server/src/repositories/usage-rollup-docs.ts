import type { ObjectId } from "mongodb";
import { mergeRollups } from "../domain/usage/rollup.js";
import { type DayRollup, type StoredGroup, toDayRollup } from "../presenters/stored-rollups.js";

/** Where a rollup belongs: one event name sent under one alias on one UTC day ("YYYY-MM-DD"). */
export interface RollupKey {
  accountId: string;
  name: string;
  alias: string;
  day: string;
}

/**
 * A partial (generation 0, one per ingested batch and key: `_id` derived from the batch and the key, so that the
 * batch and its repair write it once) or a compaction (generation n ≥ 1, `_id` derived from the key and n, so that
 * only one compaction of each generation can ever be inserted). A compaction holds the previous generation and the
 * partials it lists in `mergedPartials`. Partials written before batches had ids have an ObjectId and no `batchId`.
 */
export interface RollupDoc extends RollupKey {
  _id: ObjectId | string;
  generation: number;
  batchId?: string;
  mergedPartials: (ObjectId | string)[];
  /** The non-decimal properties its groups kept (`dimensionKeysOf`); absent on rollups that kept every one. */
  dimensionKeys?: string[];
  groups: StoredGroup[];
  /**
   * When its usage was stored (wall clock): a partial's insert, the latest of what a compaction merged, a widening's
   * own; absent on documents written before it was recorded (late usage's signal, services/billing/late-usage.ts).
   */
  storedAt?: Date;
}

export const LIGHT = { _id: 1, generation: 1 } as const;
export const compactionsOf = (docs: Pick<RollupDoc, "_id" | "generation">[]) =>
  docs
    .filter((doc) => doc.generation > 0)
    .map((doc) => String(doc._id))
    .sort()
    .join("\n");

/**
 * What one read of a key's documents amounts to: its newest compaction, and the partials that compaction does not
 * hold. A partial an older compaction held is deleted before a newer one is made, so it is never among these.
 */
export function liveOf(docs: RollupDoc[]) {
  const compactions = docs.filter((doc) => doc.generation > 0);
  const newest = compactions.reduce<RollupDoc | undefined>(
    (best, doc) => (best === undefined || doc.generation > best.generation ? doc : best),
    undefined,
  );
  const merged = new Set((newest?.mergedPartials ?? []).map(String));
  const partials = docs.filter((doc) => doc.generation === 0 && !merged.has(String(doc._id)));
  return { newest, partials };
}

/** One read's documents as usage: event name → day → that day's live rollups of every alias read, merged. */
export function foldByNameAndDay(docs: readonly RollupDoc[]): Map<string, Map<string, DayRollup>> {
  const byKey = new Map<string, { name: string; day: string; docs: RollupDoc[] }>();
  for (const doc of docs) {
    const identity = JSON.stringify([doc.name, doc.alias, doc.day]);
    const entry = byKey.get(identity) ?? { name: doc.name, day: doc.day, docs: [] };
    entry.docs.push(doc);
    byKey.set(identity, entry);
  }
  const liveByNameAndDay = new Map<string, Map<string, DayRollup[]>>();
  for (const { name, day, docs: keyDocs } of byKey.values()) {
    const { newest, partials } = liveOf(keyDocs);
    const live = [newest, ...partials].flatMap((doc) => (doc ? [toDayRollup(doc)] : []));
    const byDay = liveByNameAndDay.get(name) ?? new Map<string, DayRollup[]>();
    liveByNameAndDay.set(name, byDay.set(day, [...(byDay.get(day) ?? []), ...live]));
  }
  return new Map(
    [...liveByNameAndDay].map(([name, byDay]) => [
      name,
      new Map([...byDay].map(([day, live]) => [day, mergeRollups(live)])),
    ]),
  );
}

/** What a usage read asks: event names under a customer's aliases over the UTC days [fromDay, toDayExclusive). */
export interface RollupRead {
  names: readonly string[];
  aliases: readonly string[];
  fromDay: string;
  toDayExclusive: string;
}

/**
 * The rollups of a billing batch's customers read together (one consistent read for all of them): each customer's
 * usage read inside what it covers is answered from it in memory, exactly as its own read would have answered then.
 */
export function rollupSnapshot(read: RollupRead, docs: readonly RollupDoc[]) {
  const names = new Set(read.names);
  const aliases = new Set(read.aliases);
  const docsOf = (asked: RollupRead) => {
    const askedNames = new Set(asked.names);
    const askedAliases = new Set(asked.aliases);
    return docs.filter(
      (doc) =>
        askedNames.has(doc.name) &&
        askedAliases.has(doc.alias) &&
        doc.day >= asked.fromDay &&
        doc.day < asked.toDayExclusive,
    );
  };
  return {
    covers: (asked: RollupRead) =>
      asked.fromDay >= read.fromDay &&
      asked.toDayExclusive <= read.toDayExclusive &&
      asked.names.every((name) => names.has(name)) &&
      asked.aliases.every((alias) => aliases.has(alias)),
    /** groupsByNameAndDay of a read it covers. */
    groupsByNameAndDay: (asked: RollupRead) => foldByNameAndDay(docsOf(asked)),
    /** storedAtOfDays of a read it covers. */
    storedAtOfDays: (asked: RollupRead) => docsOf(asked).map(({ day, storedAt }) => ({ day, storedAt })),
  };
}
export type RollupSnapshot = ReturnType<typeof rollupSnapshot>;
