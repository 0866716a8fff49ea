import type { Collection, Db, Filter, ObjectId, WithId } from "mongodb";
import { duplicateKeyIndexes, isDuplicateKeyError } from "../db/duplicate-key.js";
import { databasesRoutedByAccount, findOwned } from "../db/find-owned.js";
import type { InvoiceDoc } from "../presenters/stored-invoices.js";

/**
 * An invoice's contract, by the invoice's id (`invoiceContracts`, `_id` the invoice's): written before the invoice,
 * never changed. On a sharded cluster the invoices are keyed `{ accountId, contractId }` and an invoice's id (a hash of
 * its account, contract and cycle: services/billing/invoice-id.ts) does not name its contract, so a lookup by id
 * reads this first (one shard, by `_id`), then the invoice with its whole key (one shard): two routed commands instead
 * of one to every shard holding the account (docs/decisions.md, "An invoice by id on a cluster"). Elsewhere the
 * invoice is read by `_id` alone, as before.
 */
interface InvoiceContractDoc {
  _id: ObjectId;
  accountId: string;
  contractId: string;
}

/** How far the noting of invoices stored before their pointers has come (`after`: the last invoice, `_id` order). */
interface PointerMigrationDoc {
  _id: string;
  after?: ObjectId;
  done: boolean;
}

/** Invoices one step of the pointers' migration reads: a bounded page, redone whole (writing nothing) after a crash. */
export const INVOICES_PER_POINTER_STEP = 1000;
const MIGRATION_ID = "contracts-noted";

/** The contract as the invoice stores it: the lookup's filter matches it exactly. */
const pointerOf = ({ _id, accountId, contractId }: Pick<InvoiceDoc, "_id" | "accountId" | "contractId">) => ({
  _id,
  accountId,
  contractId,
});

export function createInvoiceContracts(db: Db, invoices: Collection<InvoiceDoc>) {
  const pointers = db.collection<InvoiceContractDoc>("invoiceContracts");
  const migrations = db.collection<PointerMigrationDoc>("invoice_migrations");
  let done = false;
  const saveProgress = (set: Partial<PointerMigrationDoc>) =>
    migrations.updateOne({ _id: MIGRATION_ID }, { $set: set }, { upsert: true }).catch((error) => {
      if (!isDuplicateKeyError(error)) throw error;
    });

  /** Notes the invoices' contracts (one already there is kept): before their insert. */
  const note = async (docs: Pick<InvoiceDoc, "_id" | "accountId" | "contractId">[]) => {
    if (docs.length > 0) await pointers.insertMany(docs.map(pointerOf), { ordered: false }).catch(duplicateKeyIndexes);
  };

  return {
    async ensureIndexes() {
      // A database without invoices has no pointers to note: its migration is done from the start.
      if (!(await invoices.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } })))
        await saveProgress({ done: true });
    },

    note,

    /**
     * The account's invoice with this id. On a cluster: through its pointer, then with its whole shard key; without a
     * pointer (an invoice not noted yet, or no such invoice) from the shards holding the account.
     */
    async findOwned(accountId: string, _id: ObjectId | undefined): Promise<WithId<InvoiceDoc> | undefined> {
      if (!_id || !databasesRoutedByAccount.has(invoices.dbName)) return findOwned(invoices, accountId, _id);
      const pointer = await pointers.findOne({ _id });
      if (!pointer) return findOwned(invoices, accountId, _id);
      if (pointer.accountId !== accountId) return undefined;
      const filter = { _id, accountId, contractId: pointer.contractId } as Filter<InvoiceDoc>;
      return (await invoices.findOne(filter)) ?? undefined;
    },

    /**
     * One step of the migration of databases from before pointers: notes the contracts of the next
     * INVOICES_PER_POINTER_STEP invoices in `_id` order, then the progress; marks it done once none is left. Returns
     * how many invoices it read (0: done). Bounded and resumable.
     */
    async noteStored(): Promise<number> {
      if (done) return 0;
      const migration = await migrations.findOne({ _id: MIGRATION_ID });
      if (migration?.done) {
        done = true;
        return 0;
      }
      const page = await invoices
        .find((migration?.after ? { _id: { $gt: migration.after } } : {}) as Filter<InvoiceDoc>)
        .project<Pick<InvoiceDoc, "_id" | "accountId" | "contractId">>({ accountId: 1, contractId: 1 })
        .sort({ _id: 1 })
        .limit(INVOICES_PER_POINTER_STEP)
        .toArray();
      await note(page);
      const last = page.at(-1);
      await saveProgress(last ? { after: last._id, done: false } : { done: true });
      return page.length;
    },
  };
}

export type InvoiceContracts = ReturnType<typeof createInvoiceContracts>;
