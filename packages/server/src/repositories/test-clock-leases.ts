import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import { type ExpiringCollection, ensureExpiryIndexes, purgeExpired } from "../db/expiry.js";
import type { Hooks } from "./hooks.js";

/**
 * One advance's hold on a test account's clock: `<accountId>/<generation>`, taken by a unique insert of the next
 * generation after the latest one released or run out (domain/test-clock.ts, leaseStep), so that of concurrent
 * advances exactly one holds the clock (FerretDB decides only inserts reliably); released by its holder alone
 * (`releasedAt`: no other writer touches the document). Never updated otherwise, deleted once expired.
 */
export interface TestClockLeaseDoc {
  _id: string;
  accountId: string;
  generation: number;
  /** The advance holding it: a random id per call. */
  holder: string;
  expiresAt: Date;
  releasedAt?: Date;
}

export function createTestClockLeaseRepository(db: Db, hooks: Hooks) {
  const leases = db.collection<TestClockLeaseDoc>("testClockLeases");
  const expiring: ExpiringCollection[] = [db.collection("testClockLeases")];

  return {
    async ensureIndexes() {
      // The latest lease of an account.
      await leases.createIndex({ accountId: 1, generation: 1 });
      await ensureExpiryIndexes(db, expiring);
    },

    latest: (accountId: string) => leases.findOne({ accountId }, { sort: { generation: -1 } }),

    /** Takes the lease: false when another advance took this generation first. */
    async take(lease: TestClockLeaseDoc): Promise<boolean> {
      if (!(await wonInsert(leases.insertOne(lease)))) return false;
      await hooks("testClocks.leased", lease.accountId);
      return true;
    },

    /** Gives the clock back: the next advance may take it at once. */
    async release(leaseId: string, releasedAt: Date) {
      await leases.updateOne({ _id: leaseId }, { $set: { releasedAt } });
    },

    /** Deletes leases whose time ran out (bounded): the purge job's step, on engines without TTL indexes. */
    purgeExpired: (now: Date) => purgeExpired(expiring, now),
  };
}

export type TestClockLeaseRepository = ReturnType<typeof createTestClockLeaseRepository>;
