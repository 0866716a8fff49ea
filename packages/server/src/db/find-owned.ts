import type { Collection, Document, Filter, ObjectId, WithId } from "mongodb";

/**
 * The document with this `_id` when it belongs to the account, else undefined. Queried by `_id` alone and
 * checked after: `{ _id }` is the only filter FerretDB 1.24 hands to SQLite; any other filter makes it decode
 * every document of the collection (see docs/benchmarks.md). MongoDB serves both forms from the `_id_` index.
 */
export async function findOwned<TSchema extends Document & { accountId: string }>(
  collection: Collection<TSchema>,
  accountId: string,
  _id: ObjectId | undefined,
  projection?: Document,
): Promise<WithId<TSchema> | undefined> {
  if (!_id) return undefined;
  const doc = await collection.findOne(
    { _id } as Filter<TSchema>,
    projection && { projection: { ...projection, accountId: 1 } },
  );
  return doc?.accountId === accountId ? (doc as WithId<TSchema>) : undefined;
}
