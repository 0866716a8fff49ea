import type { ContractCreditGrant, PlanStatus } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import type { TermsInMicros } from "../domain/billing/contract.js";
import { loadTerms, type StoredTerms, storeTerms } from "../presenters/stored-contracts.js";

/** A plan's fields but its terms, which are its versions' (docs/decisions.md, "Plans"). */
interface PlanDoc {
  _id: ObjectId;
  accountId: string;
  key: string;
  name: string;
  description?: string;
  currency: string;
  status: PlanStatus;
  createdAt: Date;
  /** The last change: creation, a version, the archival. */
  updatedAt: Date;
  archivedAt?: Date;
}

/** One version of a plan's terms, keyed `<planId>:<n>`: of two racing version n's, the first insert wins. */
interface PlanVersionDoc extends StoredTerms {
  _id: string;
  /** As the API states them (a contract stores its own the same way). */
  creditGrants?: ContractCreditGrant[];
  accountId: string;
  planId: string;
  version: number;
  createdAt: Date;
}

export interface PlanRecord {
  id: string;
  key: string;
  name: string;
  description?: string;
  currency: string;
  status: PlanStatus;
  createdAt: string;
  updatedAt: string;
  archivedAt?: string;
}

export interface PlanVersionRecord {
  planId: string;
  version: number;
  terms: TermsInMicros;
  creditGrants?: ContractCreditGrant[];
  createdAt: string;
}

/** A version's terms: its products and product groups, and the credits its contracts are granted. */
export type PlanVersionTerms = TermsInMicros & { creditGrants?: ContractCreditGrant[] | undefined };

const toPlan = ({ _id, accountId: _account, createdAt, updatedAt, archivedAt, ...fields }: PlanDoc): PlanRecord => ({
  id: _id.toHexString(),
  ...fields,
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
  ...(archivedAt && { archivedAt: iso(archivedAt) }),
});

const toVersion = ({
  planId,
  version,
  createdAt,
  products,
  productGroups,
  creditGrants,
}: PlanVersionDoc): PlanVersionRecord => ({
  planId,
  version,
  terms: loadTerms({ ...(products && { products }), ...(productGroups && { productGroups }) }),
  ...(creditGrants && { creditGrants }),
  createdAt: iso(createdAt),
});

const versionId = (planId: string, version: number) => `${planId}:${version}`;

/** Plans (`plans`, key unique per account) and their versions (`planVersions`, never changed once written). */
export function createPlanRepository(db: Db) {
  const plans = db.collection<PlanDoc>("plans");
  const versions = db.collection<PlanVersionDoc>("planVersions");

  const versionDoc = (
    accountId: string,
    planId: string,
    version: number,
    { creditGrants, ...terms }: PlanVersionTerms,
    at: Date,
  ): PlanVersionDoc => ({
    _id: versionId(planId, version),
    accountId,
    planId,
    version,
    ...storeTerms(terms),
    ...(creditGrants && { creditGrants }),
    createdAt: at,
  });

  return {
    async ensureIndexes() {
      // Keys are unique per account, archived plans' too: of racing creations of one key, one insert wins.
      await plans.createIndex({ accountId: 1, key: 1 }, { unique: true });
      await plans.createIndex({ accountId: 1, status: 1, _id: 1 });
      await plans.createIndex({ accountId: 1, _id: 1 });
      await versions.createIndex({ accountId: 1, planId: 1, version: 1 });
    },

    /**
     * Stores the plan and its version 1; undefined when the account has a plan of that key (409 for the caller). The
     * version is written first, under the plan's new id: a plan is never read without its first version, and a
     * creation that lost the key race leaves a version no plan names, which it removes. A key taken before is found
     * by a read first: a refusal writes nothing.
     */
    async create(
      accountId: string,
      fields: Pick<PlanDoc, "key" | "name" | "description" | "currency">,
      terms: PlanVersionTerms,
    ): Promise<{ plan: PlanRecord; version: PlanVersionRecord } | undefined> {
      if (await plans.findOne({ accountId, key: fields.key }, { projection: { _id: 1 } })) return undefined;
      const now = new Date();
      const _id = new ObjectId();
      const first = versionDoc(accountId, _id.toHexString(), 1, terms, now);
      await versions.insertOne(first);
      const doc: PlanDoc = { _id, accountId, ...fields, status: "ACTIVE", createdAt: now, updatedAt: now };
      if (!(await wonInsert(plans.insertOne(doc)))) {
        await versions.deleteOne({ _id: first._id });
        return undefined;
      }
      return { plan: toPlan(doc), version: toVersion(first) };
    },

    /** By id first; when no plan has that id, by key. */
    async get(accountId: string, idOrKey: string): Promise<PlanRecord | undefined> {
      const byId = await findOwned(plans, accountId, toObjectId(idOrKey));
      const doc = byId ?? (await plans.findOne({ accountId, key: idOrKey }));
      return doc ? toPlan(doc) : undefined;
    },

    list(accountId: string, { status, ...page }: PageRequest & { status?: PlanStatus | undefined }) {
      return findPage(plans, { accountId, ...(status && { status }) } as Filter<PlanDoc>, page, toPlan);
    },

    /** Every version of the plan, oldest first (at most MAX_PLAN_VERSIONS). */
    async versions(accountId: string, planId: string): Promise<PlanVersionRecord[]> {
      return (await versions.find({ accountId, planId }).sort({ version: 1 }).toArray()).map(toVersion);
    },

    /** The plan's current version: its last. */
    async latest(accountId: string, planId: string): Promise<PlanVersionRecord | undefined> {
      const [doc] = await versions.find({ accountId, planId }).sort({ version: -1 }).limit(1).toArray();
      return doc && toVersion(doc);
    },

    async version(accountId: string, planId: string, version: number): Promise<PlanVersionRecord | undefined> {
      const doc = await versions.findOne({ _id: versionId(planId, version), accountId });
      return doc ? toVersion(doc) : undefined;
    },

    /** Stores version `version`; undefined when another call stored it first. */
    async addVersion(accountId: string, planId: string, version: number, terms: PlanVersionTerms) {
      const now = new Date();
      const doc = versionDoc(accountId, planId, version, terms, now);
      if (!(await wonInsert(versions.insertOne(doc)))) return undefined;
      await plans.updateOne({ accountId, _id: new ObjectId(planId) }, { $set: { updatedAt: now } });
      return toVersion(doc);
    },

    /** Archives the plan now (an archived one stays as it is). */
    async archive(accountId: string, planId: string): Promise<PlanRecord | undefined> {
      const now = new Date();
      await plans.updateOne(
        { accountId, _id: new ObjectId(planId), status: "ACTIVE" },
        { $set: { status: "ARCHIVED", archivedAt: now, updatedAt: now } },
      );
      const doc = await plans.findOne({ accountId, _id: new ObjectId(planId) });
      return doc ? toPlan(doc) : undefined;
    },
  };
}
