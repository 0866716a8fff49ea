import type { Meter, MeterCreate } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import { changedSince } from "../db/changed-since.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { conflict } from "../domain/errors.js";
import { dimensionKeysOf } from "../domain/usage/rollup.js";

/** Event names one meter query takes at most: an `$in` is served as one index scan per value only up to 200. */
const EVENT_NAMES_PER_QUERY = 200;

type MeterDoc = MeterCreate & { _id: ObjectId; accountId: string; createdAt: Date; updatedAt: Date };

const toMeter = ({ _id, accountId: _account, createdAt, updatedAt, ...fields }: MeterDoc): Meter => ({
  id: _id.toHexString(),
  ...fields,
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
});

export function createMeterRepository(db: Db) {
  const meters = db.collection<MeterDoc>("meters");

  /** The service id first; when no meter has that id, the key. */
  async function findByIdOrKey(accountId: string, idOrKey: string) {
    const byId = await findOwned(meters, accountId, toObjectId(idOrKey));
    return byId ?? (await meters.findOne({ accountId, key: idOrKey.trim() }));
  }

  return {
    async ensureIndexes() {
      await meters.createIndex({ accountId: 1, key: 1 }, { unique: true });
      await meters.createIndex({ accountId: 1, eventName: 1, _id: 1 });
      await meters.createIndex({ accountId: 1, _id: 1 });
      // The webhook sweep's reading of recent changes.
      await meters.createIndex({ updatedAt: 1 });
    },

    async create(accountId: string, input: MeterCreate): Promise<Meter> {
      const now = new Date();
      const doc: MeterDoc = { _id: new ObjectId(), accountId, ...input, createdAt: now, updatedAt: now };
      try {
        await meters.insertOne(doc);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw conflict(`A meter with key "${input.key}" already exists`);
        throw error;
      }
      return toMeter(doc);
    },

    async get(accountId: string, idOrKey: string): Promise<Meter | undefined> {
      const doc = await findByIdOrKey(accountId, idOrKey);
      return doc ? toMeter(doc) : undefined;
    },

    /** The meter whose key is exactly this (trimmed) key: how products and measurements name meters. */
    async getByKey(accountId: string, key: string): Promise<Meter | undefined> {
      const doc = await meters.findOne({ accountId, key: key.trim() });
      return doc ? toMeter(doc) : undefined;
    },

    /** The meters of these keys (trimmed), by key: one read for a simulation's meters. */
    async byKeys(accountId: string, keys: readonly string[]): Promise<Map<string, Meter>> {
      const trimmed = [...new Set(keys.map((key) => key.trim()))];
      if (trimmed.length === 0) return new Map();
      // One key is an equality, as getByKey's (the query shape of one usage read stays the same).
      const key = trimmed.length === 1 ? (trimmed[0] as string) : { $in: trimmed };
      const docs = await meters.find({ accountId, key }).toArray();
      return new Map(docs.map((doc) => [doc.key, toMeter(doc)]));
    },

    /** Every meter counting events of this name. */
    async ofEventName(accountId: string, eventName: string): Promise<Meter[]> {
      return (await meters.find({ accountId, eventName }).sort({ _id: 1 }).toArray()).map(toMeter);
    },

    /** What usage rollups of each of these event names keep (`dimensionKeysOf` their meters); `[]` for no meter. */
    async dimensionKeysByEventName(accountId: string, eventNames: string[]): Promise<Map<string, string[]>> {
      const names = [...new Set(eventNames)];
      const found: MeterDoc[] = [];
      for (let start = 0; start < names.length; start += EVENT_NAMES_PER_QUERY) {
        const chunk = names.slice(start, start + EVENT_NAMES_PER_QUERY);
        found.push(...(await meters.find({ accountId, eventName: { $in: chunk } }).toArray()));
      }
      return new Map(names.map((name) => [name, dimensionKeysOf(found.filter(({ eventName }) => eventName === name))]));
    },

    /** Only the display name: how a meter counts never changes once invoices may rest on it. */
    async rename(accountId: string, idOrKey: string, displayName: string): Promise<Meter | undefined> {
      const existing = await findByIdOrKey(accountId, idOrKey);
      if (!existing) return undefined;
      const updated = await meters.findOneAndUpdate(
        { accountId, _id: existing._id },
        { $set: { displayName, updatedAt: new Date() } },
        { returnDocument: "after" },
      );
      return updated ? toMeter(updated) : undefined;
    },

    /** Meters created or renamed at or after `since`, across accounts, oldest change first: for the webhook sweep. */
    changedSince(since: Date, limit: number) {
      return changedSince(meters, "updatedAt", since, limit, toMeter);
    },

    list(accountId: string, page: PageRequest) {
      return findPage(meters, { accountId } as Filter<MeterDoc>, page, toMeter);
    },
  };
}
