import type { Collection, Db } from "mongodb";

/** A collection whose documents carry `expiresAt`, after which they may be deleted. */
export type ExpiringCollection = Collection<{ _id: string; expiresAt: Date }>;

/** Expired documents one purge deletes per collection at most: each batch is one read and one delete of 1,000. */
export const PURGE_BATCH_SIZE = 1000;
export const PURGE_BATCHES_PER_TICK = 10;

/** MongoDB's code for an index that exists under the same key with other options (here: not yet a TTL index). */
const INDEX_OPTIONS_CONFLICT = 85;

/**
 * Whether the server deletes expired documents itself (a TTL index): MongoDB does; FerretDB 1.24 refuses
 * `expireAfterSeconds`, and says it is FerretDB in `buildInfo`.
 */
export async function expiresByTtl(db: Db): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return !("ferretdbVersion" in info);
}

/**
 * The `expiresAt` index of each collection: a TTL index where the server has them (MongoDB deletes expired documents
 * in the background), else a plain one, which the purge job's reads use (purgeExpired). An older plain index on
 * MongoDB is turned into a TTL index in place (`collMod`), as creating it again with other options is refused.
 */
export async function ensureExpiryIndexes(db: Db, collections: ExpiringCollection[]): Promise<void> {
  const ttl = await expiresByTtl(db);
  await Promise.all(
    collections.map(async (collection) => {
      if (!ttl) return void (await collection.createIndex({ expiresAt: 1 }));
      try {
        await collection.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
      } catch (error) {
        if ((error as { code?: unknown }).code !== INDEX_OPTIONS_CONFLICT) throw error;
        const index = { keyPattern: { expiresAt: 1 }, expireAfterSeconds: 0 };
        await db.command({ collMod: collection.collectionName, index });
      }
    }),
  );
}

/**
 * Deletes the documents of `collections` whose `expiresAt` is at or before `now`, at most `batches` batches of
 * `batchSize` per collection (PURGE_BATCHES_PER_TICK of PURGE_BATCH_SIZE), and returns how many it deleted. For an
 * engine without TTL indexes, run in the background (services/expiry-purge.ts), never by a request: FerretDB reads
 * the whole collection for each such read. A document whose `expiresAt` moved later meanwhile (a heartbeat) is kept:
 * the delete checks it again. Nothing depends on when this runs, since readers check ages themselves.
 */
export async function purgeExpired(
  collections: ExpiringCollection[],
  now: Date,
  { batchSize = PURGE_BATCH_SIZE, batches = PURGE_BATCHES_PER_TICK } = {},
): Promise<number> {
  let deleted = 0;
  for (const collection of collections) {
    for (let batch = 0; batch < batches; batch += 1) {
      const expired = await collection
        .find({ expiresAt: { $lte: now } }, { projection: { _id: 1 } })
        .limit(batchSize)
        .toArray();
      if (expired.length === 0) break;
      const ids = expired.map(({ _id }) => _id);
      deleted += (await collection.deleteMany({ _id: { $in: ids }, expiresAt: { $lte: now } })).deletedCount;
      if (expired.length < batchSize) break;
    }
  }
  return deleted;
}
