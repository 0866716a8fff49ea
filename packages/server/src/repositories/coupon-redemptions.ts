import type { CouponRedemption } from "@billing/shared";
import type { Db } from "mongodb";
import { changedSince } from "../db/changed-since.js";
import { wonInsert } from "../db/duplicate-key.js";
import { canonicalId, iso } from "../db/ids.js";

/**
 * A redemption as stored. Its `_id` is `<account>/<code>/<n>`, the coupon's n-th redemption: a slot, which one insert
 * wins, so a coupon with maxRedemptions has at most that many however many instances redeem it at once. The unique
 * index `(accountId, code, contractId)` lets a contract hold a coupon once.
 */
type RedemptionDoc = Omit<CouponRedemption, "id" | "redeemedAt"> & {
  _id: string;
  accountId: string;
  n: number;
  redeemedAt: Date;
  /** When it was stored (real time; `redeemedAt` is the account's clock): what the webhook sweep reads by. */
  createdAt: Date;
};

const toRedemption = ({
  _id,
  accountId: _account,
  n: _n,
  redeemedAt,
  createdAt: _created,
  ...fields
}: RedemptionDoc): CouponRedemption => ({
  id: _id,
  ...fields,
  redeemedAt: iso(redeemedAt),
});

/** What a redemption claims: every field of the redemption but its slot. */
export type RedemptionClaim = Omit<CouponRedemption, "id">;

/** The redemptions of the account's coupons: one per slot of a coupon, one per coupon and contract. */
export function createCouponRedemptionRepository(db: Db) {
  const redemptions = db.collection<RedemptionDoc>("couponRedemptions");
  const slotId = (accountId: string, code: string, n: number) => `${accountId}/${code}/${n}`;
  const ofContract = async (accountId: string, contractId: string) =>
    (
      await redemptions
        .find({ accountId, contractId: canonicalId(contractId) })
        .sort({ redeemedAt: 1 })
        .toArray()
    ).map(toRedemption);
  return {
    /** The redemptions of each of these contracts, oldest first (a billing batch's, read together). */
    async ofContracts(accountId: string, contractIds: string[]): Promise<Map<string, CouponRedemption[]>> {
      const byContract = new Map(contractIds.map((id) => [canonicalId(id), [] as CouponRedemption[]]));
      if (contractIds.length === 0) return byContract;
      const docs = await redemptions
        .find({ accountId, contractId: { $in: [...byContract.keys()] } })
        .sort({ redeemedAt: 1 })
        .toArray();
      for (const doc of docs) byContract.get(doc.contractId)?.push(toRedemption(doc));
      return byContract;
    },

    async ensureIndexes() {
      await redemptions.createIndex({ accountId: 1, code: 1, contractId: 1 }, { unique: true });
      await redemptions.createIndex({ accountId: 1, contractId: 1, redeemedAt: 1 });
      // The webhook sweep's reading of recent redemptions.
      await redemptions.createIndex({ createdAt: 1 });
    },

    /** The contract's redemptions, oldest first: the coupons its invoices apply. */
    ofContract,

    /** How many redemptions the coupon has: where a redemption starts looking for a free slot. */
    count: (accountId: string, code: string) => redemptions.countDocuments({ accountId, code }),

    /**
     * Inserts the redemption in slot `n`: the redemption stored, or undefined when another insert holds the slot or
     * the contract already holds the coupon (the caller tells which by reading).
     */
    async claim(accountId: string, n: number, claim: RedemptionClaim): Promise<CouponRedemption | undefined> {
      const doc: RedemptionDoc = {
        _id: slotId(accountId, claim.code, n),
        accountId,
        n,
        ...claim,
        contractId: canonicalId(claim.contractId),
        redeemedAt: new Date(claim.redeemedAt),
        createdAt: new Date(),
      };
      return (await wonInsert(redemptions.insertOne(doc))) ? toRedemption(doc) : undefined;
    },

    /** The contract's redemption of the coupon, if it holds it. */
    async held(accountId: string, code: string, contractId: string): Promise<CouponRedemption | undefined> {
      const doc = await redemptions.findOne({ accountId, code, contractId: canonicalId(contractId) });
      return doc ? toRedemption(doc) : undefined;
    },

    /** Redemptions stored at or after `since`, across accounts, oldest first: for the webhook sweep. */
    createdSince(since: Date, limit: number) {
      return changedSince(redemptions, "createdAt", since, limit, toRedemption);
    },
  };
}
