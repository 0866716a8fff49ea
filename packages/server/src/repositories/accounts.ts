import type { Account } from "@billing/shared";
import { type Db, ObjectId } from "mongodb";
import { iso, toObjectId } from "../db/ids.js";

interface AccountDoc {
  _id: ObjectId;
  name: string;
  createdAt: Date;
}

const toAccount = (doc: AccountDoc): Account => ({
  id: doc._id.toHexString(),
  name: doc.name,
  createdAt: iso(doc.createdAt),
});

export function createAccountRepository(db: Db) {
  const accounts = db.collection<AccountDoc>("accounts");
  return {
    async ensureIndexes() {},

    async create(name: string): Promise<Account> {
      const doc: AccountDoc = { _id: new ObjectId(), name, createdAt: new Date() };
      await accounts.insertOne(doc);
      return toAccount(doc);
    },

    async exists(accountId: string): Promise<boolean> {
      const _id = toObjectId(accountId);
      return _id !== undefined && (await accounts.countDocuments({ _id }, { limit: 1 })) > 0;
    },

    /** Every account's id, for operator jobs that cover all accounts. */
    async *ids(): AsyncGenerator<string> {
      for await (const { _id } of accounts.find({}, { projection: { _id: 1 } }).sort({ _id: 1 }))
        yield _id.toHexString();
    },

    /** Every account, oldest first, read as the caller iterates (operator listings). */
    async *list(): AsyncGenerator<Account> {
      for await (const doc of accounts.find({}).sort({ _id: 1 })) yield toAccount(doc);
    },

    async isEmpty(): Promise<boolean> {
      return (await accounts.countDocuments({}, { limit: 1 })) === 0;
    },
  };
}
