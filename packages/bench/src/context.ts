import { type Collection, type Db, type Document, ObjectId } from "mongodb";
import type { Api } from "./api.js";
import type { BenchOptions } from "./options.js";
import { formatCount, progress } from "./progress.js";
import type { ServerUnderTest } from "./server.js";

/** What every section works with: the server under test, one account's API, and the raw driver on the same database. */
export interface BenchContext {
  options: BenchOptions;
  server: ServerUnderTest;
  api: Api;
  /** The server's own database, reached directly: the baselines run here. */
  db: Db;
  /** Ids of the account's customers, created through the API. */
  customerIds: string[];
}

/** A scratch collection with exactly the indexes of `model`, so a baseline pays the same index upkeep. */
export async function scratchLike<T extends Document>(db: Db, model: string, name: string): Promise<Collection<T>> {
  await db
    .collection(name)
    .drop()
    .catch(() => {});
  const scratch = db.collection<T>(name);
  for (const { key, name: indexName, unique } of await db.collection(model).listIndexes().toArray()) {
    if (indexName === "_id_") continue;
    await scratch.createIndex(key, { name: indexName, ...(unique && { unique: true }) });
  }
  return scratch;
}

/**
 * `count` copies of a document the API stored, each with a fresh ascending `_id` and the fields `vary` gives:
 * loads data in the service's exact storage shape without sending every document through the API.
 */
export async function insertCopies(
  collection: Collection<Document>,
  template: Document,
  count: number,
  vary: (index: number) => Document,
  label: string,
): Promise<ObjectId[]> {
  const ids: ObjectId[] = [];
  const BATCH = 1000;
  for (let start = 0; start < count; start += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, count - start) }, (_, offset) => {
      const _id = new ObjectId();
      ids.push(_id);
      return { ...template, ...vary(start + offset), _id };
    });
    await collection.insertMany(docs);
    progress(`${label}: ${formatCount(start + docs.length)} / ${formatCount(count)}`);
  }
  return ids;
}
