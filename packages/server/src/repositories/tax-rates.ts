import type { TaxRate, TaxRateCreate } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import { changedSince } from "../db/changed-since.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { conflict } from "../domain/errors.js";

type TaxRateDoc = TaxRateCreate & {
  _id: ObjectId;
  accountId: string;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

const toTaxRate = ({ _id, accountId: _account, archivedAt, createdAt, updatedAt, ...fields }: TaxRateDoc): TaxRate => ({
  id: _id.toHexString(),
  ...fields,
  archivedAt: archivedAt && iso(archivedAt),
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
});

export function createTaxRateRepository(db: Db) {
  const taxRates = db.collection<TaxRateDoc>("taxRates");

  /** The service id first; when no rate has that id, the code. */
  async function findByIdOrCode(accountId: string, idOrCode: string) {
    const byId = await findOwned(taxRates, accountId, toObjectId(idOrCode));
    return byId ?? (await taxRates.findOne({ accountId, code: idOrCode }));
  }

  /** Sets fields of the rate named by id or code; undefined when the account has none. */
  async function change(accountId: string, idOrCode: string, fields: Partial<TaxRateDoc>) {
    const existing = await findByIdOrCode(accountId, idOrCode);
    if (!existing) return undefined;
    const updated = await taxRates.findOneAndUpdate(
      { accountId, _id: existing._id },
      { $set: { ...fields, updatedAt: new Date() } },
      { returnDocument: "after" },
    );
    return updated ? toTaxRate(updated) : undefined;
  }

  return {
    async ensureIndexes() {
      // Codes are unique per account, archived ones included: a code always names the one rate it priced with.
      await taxRates.createIndex({ accountId: 1, code: 1 }, { unique: true });
      await taxRates.createIndex({ accountId: 1, _id: 1 });
      // The webhook sweep's reading of recent changes.
      await taxRates.createIndex({ updatedAt: 1 });
    },

    async create(accountId: string, input: TaxRateCreate): Promise<TaxRate> {
      const now = new Date();
      const doc: TaxRateDoc = {
        _id: new ObjectId(),
        accountId,
        ...input,
        archivedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await taxRates.insertOne(doc);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw conflict(`A tax rate with code "${input.code}" already exists`);
        throw error;
      }
      return toTaxRate(doc);
    },

    async get(accountId: string, idOrCode: string): Promise<TaxRate | undefined> {
      const doc = await findByIdOrCode(accountId, idOrCode);
      return doc ? toTaxRate(doc) : undefined;
    },

    /** The account's rates of these codes, archived ones too (at most as many as codes: they are unique). */
    async ofCodes(accountId: string, codes: readonly string[]): Promise<TaxRate[]> {
      if (codes.length === 0) return [];
      return (await taxRates.find({ accountId, code: { $in: [...codes] } }).toArray()).map(toTaxRate);
    },

    /** Only the name: a rate that priced an invoice never changes. */
    rename(accountId: string, idOrCode: string, name: string) {
      return change(accountId, idOrCode, { name });
    },

    /** Archives the rate now: no invoice priced after this uses it. */
    archive(accountId: string, idOrCode: string) {
      return change(accountId, idOrCode, { archivedAt: new Date() });
    },

    /** Rates created, renamed or archived at or after `since`, across accounts, oldest change first: for the sweep. */
    changedSince(since: Date, limit: number) {
      return changedSince(taxRates, "updatedAt", since, limit, toTaxRate);
    },

    list(accountId: string, page: PageRequest) {
      return findPage(taxRates, { accountId } as Filter<TaxRateDoc>, page, toTaxRate);
    },
  };
}
