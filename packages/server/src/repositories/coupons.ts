import type { Coupon, CouponCreate } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import { changedSince } from "../db/changed-since.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { iso } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { conflict } from "../domain/errors.js";

/** A coupon as stored: its discount's value as the decimal the API took (it prices nothing until redeemed). */
type CouponDoc = Omit<CouponCreate, "redeemBy"> & {
  _id: ObjectId;
  accountId: string;
  redeemBy?: Date;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

const toCoupon = ({
  _id,
  accountId: _account,
  redeemBy,
  archivedAt,
  createdAt,
  updatedAt,
  ...fields
}: CouponDoc): Coupon => ({
  id: _id.toHexString(),
  ...fields,
  ...(redeemBy && { redeemBy: iso(redeemBy) }),
  archivedAt: archivedAt && iso(archivedAt),
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
});

/** The account's coupons, each named by its code (unique in the account). */
export function createCouponRepository(db: Db) {
  const coupons = db.collection<CouponDoc>("coupons");
  return {
    async ensureIndexes() {
      // Codes are unique per account, archived ones included: a code names one coupon for ever.
      await coupons.createIndex({ accountId: 1, code: 1 }, { unique: true });
      await coupons.createIndex({ accountId: 1, _id: 1 });
      // The webhook sweep's reading of recent creations and archivals.
      await coupons.createIndex({ createdAt: 1 });
      await coupons.createIndex({ archivedAt: 1 });
    },

    /** Stores a new coupon; 409 when the account has one of that code (the unique index decides a race). */
    async create(accountId: string, { redeemBy, ...input }: CouponCreate): Promise<Coupon> {
      const now = new Date();
      const doc: CouponDoc = {
        _id: new ObjectId(),
        accountId,
        ...input,
        ...(redeemBy && { redeemBy: new Date(redeemBy) }),
        archivedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await coupons.insertOne(doc);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw conflict(`A coupon with code "${input.code}" already exists`);
        throw error;
      }
      return toCoupon(doc);
    },

    async get(accountId: string, code: string): Promise<Coupon | undefined> {
      const doc = await coupons.findOne({ accountId, code });
      return doc ? toCoupon(doc) : undefined;
    },

    /**
     * Archives the coupon at `at` unless it was already: the coupon as it then reads, and whether this call archived
     * it (two calls at once may both set it: the event's message is keyed by the coupon, so it is published once).
     */
    async archive(accountId: string, code: string, at: Date) {
      const existing = await coupons.findOne({ accountId, code });
      if (!existing) return undefined;
      if (existing.archivedAt) return { coupon: toCoupon(existing), archived: false };
      const updated = await coupons.findOneAndUpdate(
        { accountId, _id: existing._id },
        { $set: { archivedAt: at, updatedAt: at } },
        { returnDocument: "after" },
      );
      return updated ? { coupon: toCoupon(updated), archived: true } : undefined;
    },

    list(accountId: string, page: PageRequest) {
      return findPage(coupons, { accountId } as Filter<CouponDoc>, page, toCoupon);
    },

    /** Coupons created at or after `since`, across accounts, oldest first: for the webhook sweep. */
    createdSince(since: Date, limit: number) {
      return changedSince(coupons, "createdAt", since, limit, toCoupon);
    },

    /** Coupons archived at or after `since`, across accounts, oldest first: for the webhook sweep. */
    archivedSince(since: Date, limit: number) {
      return changedSince(coupons, "archivedAt", since, limit, toCoupon);
    },
  };
}
