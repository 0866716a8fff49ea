import { ObjectId, type Db, type Filter } from "mongodb";
import type { Customer, CustomerCreate, CustomerUpdate } from "@billing/shared";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { loadCustomFields, storeCustomFields, type StoredCustomField } from "../db/json-fields.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { ApiError, isDuplicateKeyError } from "../errors.js";

type CustomerDoc = Omit<CustomerCreate, "customFields"> & {
  _id: ObjectId;
  accountId: string;
  customFields?: StoredCustomField[];
  createdAt: Date;
  updatedAt: Date;
};

const toCustomer = ({ _id, accountId: _account, customFields, createdAt, updatedAt, ...fields }: CustomerDoc): Customer => ({
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

const nameTaken = (name: string | undefined) => new ApiError("CONFLICT", `A customer named "${name}" already exists`);

export function createCustomerRepository(db: Db) {
  const customers = db.collection<CustomerDoc>("customers");

  /** The service id first; when no customer has that id, the caller's externalId. */
  async function findByIdOrExternalId(accountId: string, idOrExternalId: string) {
    const byId = await findOwned(customers, accountId, toObjectId(idOrExternalId));
    return byId ?? (await customers.findOne({ accountId, externalId: idOrExternalId }));
  }

  return {
    async ensureIndexes() {
      await customers.createIndex({ accountId: 1, name: 1 }, { unique: true });
      await customers.createIndex({ accountId: 1, externalId: 1 });
      await customers.createIndex({ accountId: 1, _id: 1 });
    },

    async create(accountId: string, input: CustomerCreate): Promise<Customer> {
      const now = new Date();
      const doc = { _id: new ObjectId(), accountId, ...storedFields(input), createdAt: now, updatedAt: now } as CustomerDoc;
      try {
        await customers.insertOne(doc);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw nameTaken(input.name);
        throw error;
      }
      return toCustomer(doc);
    },

    async update(accountId: string, idOrExternalId: string, changes: CustomerUpdate): Promise<Customer | undefined> {
      const existing = await findByIdOrExternalId(accountId, idOrExternalId);
      if (!existing) return undefined;
      try {
        const updated = await customers.findOneAndUpdate(
          { accountId, _id: existing._id },
          { $set: { ...storedFields(changes), updatedAt: new Date() } },
          { returnDocument: "after" },
        );
        return updated ? toCustomer(updated) : undefined;
      } catch (error) {
        if (isDuplicateKeyError(error)) throw nameTaken(changes.name);
        throw error;
      }
    },

    async get(accountId: string, idOrExternalId: string): Promise<Customer | undefined> {
      const doc = await findByIdOrExternalId(accountId, idOrExternalId);
      return doc ? toCustomer(doc) : undefined;
    },

    async getByName(accountId: string, name: string): Promise<Customer | undefined> {
      const doc = await customers.findOne({ accountId, name });
      return doc ? toCustomer(doc) : undefined;
    },

    /** Whether the id names a customer of this account (used by resources that reference customers). */
    async exists(accountId: string, customerId: string): Promise<boolean> {
      return (await findOwned(customers, accountId, toObjectId(customerId), { _id: 1 })) !== undefined;
    },

    list(accountId: string, page: PageRequest) {
      return findPage(customers, { accountId } as Filter<CustomerDoc>, page, toCustomer);
    },
  };
}
export type CustomerRepository = ReturnType<typeof createCustomerRepository>;
