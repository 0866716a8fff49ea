import type { Db, ObjectId } from "mongodb";
import { isDuplicateKeyError } from "../db/duplicate-key.js";

/**
 * One billing call's hold on a contract's due work (issue 30), so that concurrent calls (two POST /billing-runs,
 * schedulers on several instances) split the due contracts instead of each doing all of them. Taken by a unique
 * insert (the only race FerretDB decides), released by the call when it ends, and retaken by anyone once its lease
 * has expired (a call that crashed). It decides who works, never what exists: an invoice is still made once by its
 * own unique insert, so a claim lost or doubled costs repeated work, never a wrong bill.
 */
export interface BillingClaimDoc {
  /** The contract's id (a schedule's `_id`): at most one holder per contract. */
  _id: ObjectId;
  accountId: string;
  /** The call holding it: a random id per call, so that a call releases only its own claims. */
  holder: string;
  expiresAt: Date;
}

/** Expired claims removed per scheduler tick (each a point delete), at most. */
export const EXPIRED_CLAIMS_PER_PURGE = 100;

export function createBillingClaimRepository(db: Db) {
  const claims = db.collection<BillingClaimDoc>("billingClaims");

  const insert = async (claim: BillingClaimDoc) => {
    try {
      await claims.insertOne(claim);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  };

  return {
    async ensureIndexes() {
      await claims.createIndex({ holder: 1 });
      await claims.createIndex({ expiresAt: 1 });
    },

    /** The claims standing on these contracts (a page of schedules), live or expired. */
    async standing(contractIds: ObjectId[]): Promise<Map<string, BillingClaimDoc>> {
      if (contractIds.length === 0) return new Map();
      const found = await claims.find({ _id: { $in: contractIds } }).toArray();
      return new Map(found.map((claim) => [claim._id.toHexString(), claim]));
    },

    /**
     * Takes the contract for `claim.holder`: true when this call won it. `expired`, the claim seen standing on it
     * with its lease run out, is removed first (only that holder's: a claim retaken meanwhile stays).
     */
    async take(claim: BillingClaimDoc, expired?: BillingClaimDoc): Promise<boolean> {
      if (expired) await claims.deleteOne({ _id: expired._id, holder: expired.holder });
      return insert(claim);
    },

    /** Gives back every claim of a call: the contracts it did not finish are free for the next call at once. */
    async release(holder: string) {
      await claims.deleteMany({ holder });
    },

    /** Removes claims whose lease ran out (their calls died and nobody retook them), a bounded batch; how many. */
    async purgeExpired(now: Date, limit = EXPIRED_CLAIMS_PER_PURGE): Promise<number> {
      const expired = await claims
        .find({ expiresAt: { $lte: now } }, { projection: { _id: 1, holder: 1 } })
        .sort({ expiresAt: 1 })
        .limit(limit)
        .toArray();
      for (const { _id, holder } of expired) await claims.deleteOne({ _id, holder });
      return expired.length;
    },
  };
}

export type BillingClaimRepository = ReturnType<typeof createBillingClaimRepository>;
