import type { Db } from "mongodb";
import { wonInserts } from "../db/duplicate-key.js";
import { type ExpiringCollection, ensureExpiryIndexes, purgeExpired } from "../db/expiry.js";

/**
 * One billing call's hold on a contract's due work (issue 30), so that concurrent calls (two POST /billing-runs,
 * schedulers on several instances) split the due contracts instead of each doing all of them. Taken by a unique
 * insert (the only race FerretDB decides), released by the call when it ends, and retaken by anyone once its lease
 * has expired (a call that crashed) or once the contract has nothing left due at the holder's `at` (domain/billing/
 * claims.ts). It decides who works, never what exists: an invoice is still made once by its own unique insert, so a
 * claim lost or doubled costs repeated work, never a wrong bill.
 */
export interface BillingClaimDoc {
  /** The contract's id (its schedule's `_id`, as hex): at most one holder per contract. */
  _id: string;
  accountId: string;
  /** The call holding it: a random id per call, so that a call releases only its own claims. */
  holder: string;
  /** The holder's `at`: the claim covers the contract's work due by then, and no later work. */
  at: Date;
  expiresAt: Date;
}

/**
 * The account's claims read at most at once (standingOfAccount): ten calls' batches of 100 held together, small
 * documents.
 */
const MAX_ACCOUNT_CLAIMS = 1_000;

export function createBillingClaimRepository(db: Db) {
  const claims = db.collection<BillingClaimDoc>("billingClaims");
  const expiring: ExpiringCollection[] = [db.collection("billingClaims")];

  return {
    /**
     * `holder` for release; `accountId` for a batch's look at the account's claims; `expiresAt` a TTL index on
     * MongoDB, else the purge job's (db/expiry.ts).
     */
    async ensureIndexes() {
      await claims.createIndex({ holder: 1 });
      await claims.createIndex({ accountId: 1 });
      await ensureExpiryIndexes(db, expiring);
    },

    /**
     * Every claim of the account, live or not (those whose lease ran out stay until retaken or purged), by contract,
     * in one read: they answer `standing` for any of its contracts (one not among them has no claim). Undefined past
     * MAX_ACCOUNT_CLAIMS: then each page of contracts reads its own (`standing`).
     */
    async standingOfAccount(accountId: string): Promise<Map<string, BillingClaimDoc> | undefined> {
      const limit = MAX_ACCOUNT_CLAIMS + 1;
      const found = await claims.find({ accountId }, { batchSize: limit }).limit(limit).toArray();
      return found.length > MAX_ACCOUNT_CLAIMS ? undefined : new Map(found.map((claim) => [claim._id, claim]));
    },

    /** The claims standing on these contracts (a page of schedules), live or not. */
    async standing(contractIds: string[]): Promise<Map<string, BillingClaimDoc>> {
      if (contractIds.length === 0) return new Map();
      // One batch whatever the count (≤ 200): past the driver's first batch of 101 a getMore would follow, and so
      // would one after a full batch on FerretDB, which cannot tell that nothing is left.
      const single = { batchSize: contractIds.length, singleBatch: true };
      const found = await claims.find({ _id: { $in: contractIds } }, single).toArray();
      return new Map(found.map((claim) => [claim._id, claim]));
    },

    /**
     * Takes these contracts for their holder in one insert: the ids of those this call won. Each `stale` claim, seen
     * standing on its contract with its lease run out or its work done, is removed first (only that holder's: a claim
     * retaken meanwhile stays).
     */
    async takeMany(wanted: { claim: BillingClaimDoc; stale?: BillingClaimDoc }[]): Promise<Set<string>> {
      if (wanted.length === 0) return new Set();
      for (const { stale } of wanted) if (stale) await claims.deleteOne({ _id: stale._id, holder: stale.holder });
      const docs = wanted.map(({ claim }) => claim);
      const won = await wonInserts(claims.insertMany(docs, { ordered: false }), docs.length);
      return new Set(docs.filter((_, index) => won.has(index)).map(({ _id }) => _id));
    },

    /** Gives back every claim of a call: the contracts it did not finish are free for the next call at once. */
    async release(holder: string) {
      await claims.deleteMany({ holder });
    },

    /** Deletes claims whose lease ran out (bounded): the purge job's step, on engines without TTL indexes. */
    purgeExpired: (now: Date) => purgeExpired(expiring, now),
  };
}

export type BillingClaimRepository = ReturnType<typeof createBillingClaimRepository>;
