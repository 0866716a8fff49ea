import type { Collection, Document, Filter, ObjectId, WithId } from "mongodb";

/**
 * Databases served by a sharded cluster (start-up adds them: db/sharding.ts). Their lookups by `_id` carry the
 * account, so that mongos routes them to the shards holding the account (keys start with `accountId`, and under
 * `{ accountId: 1, _id: "hashed" }` to one shard: db/shard-plan.ts) instead of asking every shard.
 */
export const databasesRoutedByAccount = new Set<string>();

/**
 * The filter of an owned document's lookup: `{ _id }` alone, the only filter FerretDB 1.24 hands to SQLite (any other
 * makes it decode every document of the collection, see docs/benchmarks.md); with the account on a sharded cluster,
 * where `{ _id }` alone goes to every shard. MongoDB serves both forms from the `_id_` index.
 */
export const ownedFilter = (accountId: string, _id: ObjectId, routedByAccount: boolean) =>
  routedByAccount ? { _id, accountId } : { _id };

/**
 * A filter by `_id` (or `_id` `$in`) with the fields of the collection's shard key added on a sharded cluster, where
 * they route it to the shards holding those values (db/shard-plan.ts: `routedLookups`); `{ _id }` alone elsewhere,
 * the filter FerretDB serves without decoding the collection. Example: an invoice change `<invoice>:<n>` read with
 * `{ invoiceId }` on a cluster keyed `{ invoiceId: "hashed" }`.
 */
export const routedById = <T extends Document>(collection: Collection<T>, filter: Document, keyFields: Document) =>
  (databasesRoutedByAccount.has(collection.dbName) ? { ...filter, ...keyFields } : filter) as Filter<T>;

/** The document with this `_id` when it belongs to the account, else undefined (checked after the lookup too). */
export async function findOwned<TSchema extends Document & { accountId: string }>(
  collection: Collection<TSchema>,
  accountId: string,
  _id: ObjectId | undefined,
  projection?: Document,
): Promise<WithId<TSchema> | undefined> {
  if (!_id) return undefined;
  const doc = await collection.findOne(
    ownedFilter(accountId, _id, databasesRoutedByAccount.has(collection.dbName)) as Filter<TSchema>,
    projection && { projection: { ...projection, accountId: 1 } },
  );
  return doc?.accountId === accountId ? (doc as WithId<TSchema>) : undefined;
}
