import type { Collection, Db, Document, Filter, FindOptions, ObjectId, WithId } from "mongodb";
import { duplicateKeyIndexes } from "./duplicate-key.js";
import { databasesRoutedByAccount } from "./find-owned.js";
import { type AfterId, afterId, type MigrationProgress, pagedMigration, walkById } from "./paged-migration.js";

/**
 * Pointers from a document's id to the field of its collection's shard key that the id does not name (`_id` the
 * document's; `{ _id: "hashed" }` on a cluster), written with the document, never changed. On a sharded cluster a
 * lookup by id reads the pointer (one shard), then the document with its whole key, `{ _id, accountId, <field> }` (one
 * shard): two routed commands instead of one to every shard holding the account. Elsewhere the document is read as
 * before, with no command added. A missing pointer (no such document, or one stored before pointers and not yet
 * noted by the upkeep's step) falls back to the account's shards, so no answer depends on a pointer. Used by
 * invoices (their contract) and credit grants (their customer): docs/decisions.md, "A lookup by id through a pointer".
 */
type PointerDoc = { _id: ObjectId; accountId: string } & Document;

/** Documents one step of a pointers' migration reads: a bounded page, redone whole (writing nothing) after a crash. */
const DOCUMENTS_PER_POINTER_STEP = 1000;

type Pointed = { _id: ObjectId; accountId: string } & Document;

interface IdPointerOptions<T extends Pointed> {
  /** The pointers' collection (`invoiceContracts`). */
  pointers: string;
  /** The key's field the pointer holds (`contractId`), as the document stores it. */
  field: keyof T & string;
  /** The unsharded collection of the migration's progress, and its document there. */
  migrations: string;
  migrationId: string;
  /** Which documents have a pointer (all when absent), and the fields that tells from (in the migration's page). */
  pointed?: { fields: string[]; is: (doc: T) => boolean };
}

export function createIdPointers<T extends Pointed>(db: Db, documents: Collection<T>, options: IdPointerOptions<T>) {
  const { field, migrationId, pointed } = options;
  const pointers = db.collection<PointerDoc>(options.pointers);
  const migrations = db.collection<MigrationProgress<AfterId<ObjectId>>>(options.migrations);
  // Read each step (one point read a tick), never remembered: a done migration is one read.
  const migration = pagedMigration(migrations, migrationId);

  /** Notes the documents' pointers (one already there is kept). */
  const note = async (docs: T[]) => {
    const noted = docs
      .filter((doc) => pointed?.is(doc) ?? true)
      .map((doc) => ({ _id: doc._id, accountId: doc.accountId, [field]: doc[field] }));
    if (noted.length > 0) await pointers.insertMany(noted, { ordered: false }).catch(duplicateKeyIndexes);
  };

  /** The lookup's filter, or undefined when the pointer names another account. */
  const filterOf = async (accountId: string, _id: ObjectId): Promise<Document | undefined> => {
    if (!databasesRoutedByAccount.has(documents.dbName)) return { _id };
    const pointer = await pointers.findOne({ _id });
    if (!pointer) return { _id, accountId };
    return pointer.accountId === accountId ? { _id, accountId, [field]: pointer[field] } : undefined;
  };

  return {
    async ensureIndexes() {
      // A database without such documents has no pointers to note: its migration is done from the start.
      const any = await documents.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } });
      if (!any) await migration.markDone();
    },

    note,

    /**
     * The account's document with this id (its account checked after the read), read with `read`'s options: by
     * `{ _id }` off a cluster (the filter FerretDB serves without decoding the collection), by `{ _id, accountId }`
     * on one without a pointer, with its whole shard key on one with a pointer.
     */
    async findOwned(accountId: string, _id: ObjectId | undefined, read?: FindOptions): Promise<WithId<T> | undefined> {
      if (!_id) return undefined;
      const filter = await filterOf(accountId, _id);
      const doc = filter && (await documents.findOne(filter as Filter<T>, read));
      return doc?.accountId === accountId ? (doc as WithId<T>) : undefined;
    },

    /**
     * One step of the migration of databases from before pointers: notes the next DOCUMENTS_PER_POINTER_STEP
     * documents in `_id` order (a pointer already there is kept), then the progress; marks it done once none is left.
     * Returns how many documents it read (0: done). Bounded and resumable.
     */
    noteStored(): Promise<number> {
      const fields = Object.fromEntries(["accountId", field, ...(pointed?.fields ?? [])].map((name) => [name, 1]));
      const read = (after: ObjectId | undefined) => documents.find(afterId(after) as Filter<T>).project<T>(fields);
      return migration.step(walkById(read, DOCUMENTS_PER_POINTER_STEP, note));
    },
  };
}
