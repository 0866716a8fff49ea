import type { Customer, CustomerCreate, CustomerUpdate } from "@billing/shared";
import { type Db, type Document, type Filter, ObjectId } from "mongodb";
import { changedSince } from "../db/changed-since.js";
import { countedStream } from "../db/counted-stream.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { loadCustomFields, type StoredCustomField, storeCustomFields } from "../db/json-fields.js";
import { decodeCursor, findPage, ID_ORDER, type Page, type PageRequest } from "../db/pagination.js";
import { conflict } from "../domain/errors.js";
import { createAliasClaims, NAMES } from "./customer-aliases.js";
import { type ClaimMigrationDoc, createClaimMigration } from "./customer-claim-migrations.js";
import type { ListCountRepository } from "./list-counts.js";

type CustomerDoc = Omit<CustomerCreate, "customFields"> & {
  _id: ObjectId;
  accountId: string;
  customFields?: StoredCustomField[];
  /** What the payment provider last said of the customer's default payment method. */
  paymentMethod?: Customer["paymentMethod"];
  createdAt: Date;
  updatedAt: Date;
};

const toCustomer = ({
  _id,
  accountId: _account,
  customFields,
  createdAt,
  updatedAt,
  ...fields
}: CustomerDoc): Customer => ({
  id: _id.toHexString(),
  ...fields,
  ...(customFields && { customFields: loadCustomFields(customFields) }),
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
});

const storedFields = ({ customFields, ...fields }: CustomerUpdate) => ({
  ...fields,
  ...(customFields && { customFields: storeCustomFields(customFields) }),
});

const nameTaken = (name: string | undefined) => conflict(`A customer named "${name}" already exists`);

export function createCustomerRepository(db: Db, listCounts: ListCountRepository) {
  const customers = db.collection<CustomerDoc>("customers");
  // Customers are never deleted and keep their account and createdAt: the list's total is counted (list-counts.ts).
  const created = countedStream("customers", customers, "createdAt");

  /**
   * A name another customer has is refused before any claim is made, so that the refusal writes nothing; the name's
   * claim (`customerNames`) decides a race for one name (the loser releases its claims). Once every stored name is
   * claimed, the claim's own check (refuseHeld) is the whole check: claimAll reads no customer for the name.
   */
  async function refuseTakenName(accountId: string, name: string) {
    if (await customers.findOne({ accountId, name }, { projection: { _id: 1 } })) throw nameTaken(name);
  }
  const aliasClaims = createAliasClaims(db, customers);
  const nameClaims = createAliasClaims(db, customers, NAMES);
  const migrations = db.collection<ClaimMigrationDoc>("customer_migrations");
  const nameMigration = createClaimMigration(customers, migrations, {
    id: "names-claimed",
    claims: nameClaims,
    valuesOf: ({ name }) => [name],
    // The old unique `(accountId, name)` index kept names unique meanwhile; without it the key can split an account.
    finish: () => customers.dropIndex("accountId_1_name_1").then(undefined, () => undefined),
  });
  const aliasMigration = createClaimMigration(customers, migrations, {
    id: "aliases-claimed",
    claims: aliasClaims,
    valuesOf: ({ aliases }) => aliases ?? [],
  });

  /**
   * The customer holding a name or alias, through its claim and the customer's `_id` (both routed on a cluster), once
   * every stored value of that kind is claimed (`done`); a young claim's or a leftover's customer does not hold it.
   * Not `done`: the caller reads the customers by the value, as before claims.
   */
  async function heldByClaim(kind: "name" | "aliases", accountId: string, value: string) {
    const [migration, claims] = kind === "name" ? [nameMigration, nameClaims] : [aliasMigration, aliasClaims];
    const [done, holder] = await Promise.all([migration.done(), claims.holderOf(accountId, value)]);
    if (!done) return { done };
    const doc = await findOwned(customers, accountId, holder);
    const holds = kind === "name" ? doc?.name === value : doc?.aliases?.includes(value) === true;
    return { done, doc: holds ? doc : undefined };
  }

  /** The customers listing `alias`, paged as findPage pages them: its holder alone once every alias is claimed. */
  async function listByAlias(accountId: string, alias: string, page: PageRequest): Promise<Page<Customer>> {
    const held = await heldByClaim("aliases", accountId, alias);
    if (!held.done) return findPage(customers, { accountId, aliases: alias } as Filter<CustomerDoc>, page, toCustomer);
    const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor).toHexString();
    const { doc } = held;
    const onPage = doc !== undefined && (after === undefined || doc._id.toHexString() > after);
    return { items: doc && onPage ? [toCustomer(doc)] : [], total: doc ? 1 : 0, hasMore: false };
  }

  /**
   * Claims the name, then the aliases: all of them, or none (released on a refusal). A name or alias another
   * customer holds is refused before any claim is made, so that the refusal writes nothing.
   */
  async function claimAll(accountId: string, _id: ObjectId, name: string | undefined, aliases: string[] = []) {
    const nameList = name === undefined ? [] : [name];
    const [namesDone, aliasesDone] = await Promise.all([
      name !== undefined && nameMigration.done(),
      aliases.length > 0 && aliasMigration.done(),
    ]);
    if (name !== undefined && !namesDone) await refuseTakenName(accountId, name);
    await nameClaims.refuseHeld(accountId, _id, nameList);
    await aliasClaims.refuseHeld(accountId, _id, aliases);
    const names = await nameClaims.claim(accountId, _id, nameList, { checked: true, unclaimedMayList: !namesDone });
    try {
      const claimed = await aliasClaims.claim(accountId, _id, aliases, {
        checked: true,
        unclaimedMayList: !aliasesDone,
      });
      return { names, aliases: claimed };
    } catch (error) {
      await nameClaims.release(accountId, _id, names);
      throw error;
    }
  }
  const releaseAll = async (accountId: string, _id: ObjectId, claimed: { names: string[]; aliases: string[] }) => {
    await nameClaims.release(accountId, _id, claimed.names);
    await aliasClaims.release(accountId, _id, claimed.aliases);
  };

  /**
   * The customer an event's customerAlias names: the one listing it among its aliases, else the oldest whose
   * externalId it is (externalIds are not unique; aliases are). One read by alias, not the claim's three commands
   * (docs/decisions.md, "A customer's name and aliases through their claims").
   */
  async function ownerOfAlias(accountId: string, alias: string): Promise<ObjectId | undefined> {
    const [byAlias] = await customers
      .find({ accountId, aliases: alias })
      .project<{ _id: ObjectId }>({ _id: 1 })
      .sort({ _id: 1 })
      .limit(1)
      .toArray();
    if (byAlias) return byAlias._id;
    const [byExternalId] = await customers
      .find({ accountId, externalId: alias })
      .project<{ _id: ObjectId }>({ _id: 1 })
      .sort({ _id: 1 })
      .limit(1)
      .toArray();
    return byExternalId?._id;
  }

  /** The service id first; when no customer has that id, the caller's externalId. */
  async function findByIdOrExternalId(accountId: string, idOrExternalId: string, projection?: Document) {
    const byId = await findOwned(customers, accountId, toObjectId(idOrExternalId), projection);
    return byId ?? (await customers.findOne({ accountId, externalId: idOrExternalId }, { projection }));
  }

  return {
    async ensureIndexes() {
      // Not unique: a name is decided by its customerNames claim (the old unique index goes with claimStoredNames).
      await customers.createIndex({ accountId: 1, name: 1, _id: 1 });
      // With `_id`: attribution takes the oldest customer of an externalId (see ownerOfAlias).
      await customers.dropIndex("accountId_1_externalId_1").catch(() => undefined);
      await customers.createIndex({ accountId: 1, externalId: 1, _id: 1 });
      await customers.createIndex({ accountId: 1, _id: 1 });
      // The list total's counting (countedStream).
      await customers.createIndex({ accountId: 1, createdAt: 1, _id: 1 });
      // Not unique: uniqueness is decided by the customerAliases claims (see customer-aliases.ts).
      await customers.createIndex({ accountId: 1, aliases: 1, _id: 1 });
      // The webhook sweep's reading of recent changes.
      await customers.createIndex({ updatedAt: 1 });
      await aliasClaims.ensureIndexes();
      await nameClaims.ensureIndexes();
      // A database without customers has no names or aliases to claim: their migrations are done from the start.
      if (!(await customers.findOne({}, { sort: { _id: 1 }, projection: { _id: 1 } })))
        await Promise.all([nameMigration.markDone(), aliasMigration.markDone()]);
    },

    /**
     * One step of the migration of databases from before names were claimed (customer-claim-migrations.ts): once
     * every name is claimed, it drops the old unique `(accountId, name)` index (so the shard key can split an account)
     * and is done. Returns how many customers it read (0: done).
     */
    claimStoredNames: () => nameMigration.step(),

    /**
     * One step of the migration of databases from before aliases were claimed: once done, an alias's claim alone
     * names its customer (no customer is read by alias). Returns how many customers it read (0: done).
     */
    claimStoredAliases: () => aliasMigration.step(),

    async create(accountId: string, input: CustomerCreate): Promise<Customer> {
      const now = new Date();
      const doc = {
        _id: new ObjectId(),
        accountId,
        ...storedFields(input),
        createdAt: now,
        updatedAt: now,
      } as CustomerDoc;
      const claimed = await claimAll(accountId, doc._id, input.name, input.aliases);
      try {
        await customers.insertOne(doc);
      } catch (error) {
        await releaseAll(accountId, doc._id, claimed);
        // The old unique index, until claimStoredNames drops it.
        if (isDuplicateKeyError(error)) throw nameTaken(input.name);
        throw error;
      }
      return toCustomer(doc);
    },

    async update(accountId: string, idOrExternalId: string, changes: CustomerUpdate): Promise<Customer | undefined> {
      const existing = await findByIdOrExternalId(accountId, idOrExternalId);
      if (!existing) return undefined;
      const renamed = changes.name !== undefined && changes.name !== existing.name ? changes.name : undefined;
      const claimed = await claimAll(accountId, existing._id, renamed, changes.aliases);
      let updated: CustomerDoc | null;
      try {
        updated = await customers.findOneAndUpdate(
          { accountId, _id: existing._id },
          { $set: { ...storedFields(changes), updatedAt: new Date() } },
          { returnDocument: "after" },
        );
      } catch (error) {
        await releaseAll(accountId, existing._id, claimed);
        if (isDuplicateKeyError(error)) throw nameTaken(changes.name);
        throw error;
      }
      // The name it had is free again (a crash before this line leaves a claim that settles, as an alias's does).
      if (renamed !== undefined) await nameClaims.release(accountId, existing._id, [existing.name]);
      // Aliases dropped by this update are free again; a crash before this line leaves claims that settle (see
      // customer-aliases.ts).
      const kept = new Set(changes.aliases ?? existing.aliases ?? []);
      await aliasClaims.release(
        accountId,
        existing._id,
        (existing.aliases ?? []).filter((alias) => !kept.has(alias)),
      );
      return updated ? toCustomer(updated) : undefined;
    },

    /** Records what the payment provider says of the customer's payment method (and its provider link, when new). */
    async setPaymentLink(
      accountId: string,
      customerId: string,
      link: Pick<CustomerDoc, "paymentMethod" | "paymentProvider">,
    ): Promise<Customer | undefined> {
      const _id = toObjectId(customerId);
      if (!_id) return undefined;
      const updated = await customers.findOneAndUpdate(
        { accountId, _id },
        { $set: { ...link, updatedAt: new Date() } },
        { returnDocument: "after" },
      );
      return updated ? toCustomer(updated) : undefined;
    },

    /** The id of the customer an event's customerAlias belongs to, if any (see ownerOfAlias). */
    async attributedTo(accountId: string, alias: string): Promise<string | undefined> {
      return (await ownerOfAlias(accountId, alias))?.toHexString();
    },

    /**
     * The customerAlias values whose events are this customer's: its aliases, and its externalId unless another
     * customer claims it.
     */
    async eventAliasesOf(accountId: string, customer: Customer): Promise<string[]> {
      const aliases = customer.aliases ?? [];
      const { externalId } = customer;
      if (externalId === undefined || aliases.includes(externalId)) return aliases;
      const owner = await ownerOfAlias(accountId, externalId);
      return owner?.toHexString() === customer.id ? [...aliases, externalId] : aliases;
    },

    /** These customers of the account, by service id, read together (a billing batch's). */
    async many(accountId: string, customerIds: string[]): Promise<Map<string, Customer>> {
      const ids = customerIds.flatMap((id) => toObjectId(id) ?? []);
      const docs = ids.length === 0 ? [] : await customers.find({ accountId, _id: { $in: ids } }).toArray();
      return new Map(docs.map((doc) => [doc._id.toHexString(), toCustomer(doc)] as const));
    },

    async get(accountId: string, idOrExternalId: string): Promise<Customer | undefined> {
      const doc = await findByIdOrExternalId(accountId, idOrExternalId);
      return doc ? toCustomer(doc) : undefined;
    },

    /** The customer with this name: through the name's claim once every name is claimed (a point read by `_id`). */
    async getByName(accountId: string, name: string): Promise<Customer | undefined> {
      const held = await heldByClaim("name", accountId, name);
      const doc = held.done ? held.doc : await customers.findOne({ accountId, name });
      return doc ? toCustomer(doc) : undefined;
    },

    /**
     * The service id of the customer of this account that an id or externalId names, as GET /customers/{customerId}
     * finds it: resources that reference a customer store this id.
     */
    async idOf(accountId: string, idOrExternalId: string): Promise<string | undefined> {
      return (await findByIdOrExternalId(accountId, idOrExternalId, { _id: 1 }))?._id.toHexString();
    },

    /**
     * Customers created or updated at or after `since`, across accounts, oldest change first: for the webhook sweep.
     */
    changedSince(since: Date, limit: number) {
      return changedSince(customers, "updatedAt", since, limit, toCustomer);
    },

    /** The account's customers, or those listing `alias` (its total then counts every match). */
    list(accountId: string, { alias, ...page }: PageRequest & { alias?: string | undefined }) {
      if (alias !== undefined) return listByAlias(accountId, alias, page);
      return findPage(customers, { accountId } as Filter<CustomerDoc>, page, toCustomer, ID_ORDER, () =>
        listCounts.total(accountId, created),
      );
    },

    /** What the list's total counts: compacted by services/list-totals.ts. */
    countedStreams: [created],
  };
}
