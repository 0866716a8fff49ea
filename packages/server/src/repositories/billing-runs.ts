import type { Db, ObjectId } from "mongodb";
import { accountsHolding } from "../db/accounts-holding.js";
import { isDuplicateKeyError, wonInsert, wonInserts } from "../db/duplicate-key.js";

/**
 * Where billing runs stand with each contract: `nextDueAt` is a moment before which every invoice of the
 * contract is done (made, empty, or recorded as a failure). Runs read only contracts whose `nextDueAt` has
 * come, so a run costs what is due, not what exists. Any moment a run computes is such a bound, and the
 * larger of two bounds is one too: updates only move it forward, and an update lost on FerretDB (which
 * applies concurrent updates without isolation) only makes a later run look at the contract again.
 */
export interface ScheduleDoc {
  _id: ObjectId;
  accountId: string;
  /**
   * The contract's customer (schedules written since issue 30): a pass holds back only this customer's invoices for
   * a contract it does not work on (domain/billing/claims.ts). Unknown on older schedules: every customer's.
   */
  customerId?: string;
  nextDueAt: Date;
  createdAt: Date;
  /**
   * Set on schedules written since runs bill in ready order (issue 28), and on older ones once rewound to the
   * contract's first cycle. An older schedule may sit past a prepaid invoice never made: a call that stopped on
   * an arrears invoice moved it to that invoice's ready time, after a prepaid one due at the same instant.
   */
  checkedFromStart?: true;
}

/** A contract's invoice that could not be made. Runs try it again once `retryAt` has passed. */
export interface BillingFailureDoc {
  /** `<contractId>/<cycle key>`: one record per invoice, however many runs fail on it. */
  _id: string;
  accountId: string;
  contractId: string;
  cycleKey: string;
  cycleStart: Date;
  message: string;
  retryAt: Date;
  createdAt: Date;
}

/**
 * An invoice whose credits are being (or were) debited: written before the debit and removed once the
 * invoice exists. One left behind marks a debit whose invoice may never have been written (a crash, a
 * failed insert), which the next run completes.
 */
export interface PendingPaymentDoc {
  /** The invoice's id. */
  _id: ObjectId;
  accountId: string;
  contractId: string;
  cycleKey: string;
  cycleStart: Date;
  createdAt: Date;
}

/** The moment of contracts that will never be due again (ended, deleted, never billable). */
export const NEVER_DUE = new Date("9999-12-31T23:59:59.999Z");

/**
 * What versions before issue 28 wrote for NEVER_DUE: an ended contract there may lack a prepaid invoice, and is
 * found by this moment (no schedule is written at it any more) to be rewound and checked from its start.
 */
const NEVER_DUE_UNCHECKED = new Date("9999-12-31T00:00:00Z");

export function createBillingRunRepository(db: Db) {
  const schedules = db.collection<ScheduleDoc>("billingSchedules");
  const failures = db.collection<BillingFailureDoc>("billingFailures");
  const payments = db.collection<PendingPaymentDoc>("billingPendingPayments");

  return {
    async ensureIndexes() {
      await schedules.createIndex({ accountId: 1, nextDueAt: 1, _id: 1 });
      await failures.createIndex({ accountId: 1, retryAt: 1 });
      // A contract's status reads Error while one of its cycles has failed to bill.
      await failures.createIndex({ accountId: 1, contractId: 1 });
      await payments.createIndex({ accountId: 1, createdAt: 1 });
    },

    /** Called before the contract is stored: a contract never exists without its schedule. */
    async schedule(accountId: string, contractId: ObjectId, customerId: string, nextDueAt: Date) {
      const createdAt = new Date();
      // Already written by an earlier or concurrent caller: the same schedule.
      await wonInsert(
        schedules.insertOne({ _id: contractId, accountId, customerId, nextDueAt, createdAt, checkedFromStart: true }),
      );
    },

    /** The account's contracts due by `at`, the longest due first; `skip` of them passed over (a later page). */
    due(accountId: string, at: Date, limit: number, skip = 0) {
      return (
        schedules
          .find({ accountId, nextDueAt: { $lte: at } })
          .sort({ nextDueAt: 1, _id: 1 })
          .skip(skip)
          .limit(limit)
          // A first batch larger than the page: FerretDB leaves a cursor open after exactly `limit` documents,
          // which the driver then closes with a command of its own (killCursors).
          .batchSize(limit + 1)
          .toArray()
      );
    },

    /**
     * The earliest moment after `after` (any, when undefined) at which a contract of the account is due: where a test
     * clock's advance stops to bill it (services/billing/test-clock/due-work.ts).
     */
    async nextDue(accountId: string, after: Date | undefined): Promise<Date | undefined> {
      const filter = { accountId, ...(after && { nextDueAt: { $gt: after } }) };
      const next = await schedules.findOne(filter, { sort: { nextDueAt: 1, _id: 1 }, projection: { nextDueAt: 1 } });
      return next?.nextDueAt;
    },

    /**
     * Accounts after `after` with a contract due by `now` or a schedule to rewind (endedUnchecked), in id order: the
     * billing scheduler's look for work (services/billing/accounts-with-work.ts).
     */
    accountsWithSchedulesDue: (after: string | undefined, now: Date, wanted: number) =>
      accountsHolding(
        schedules,
        {
          $or: [{ nextDueAt: { $lte: now } }, { nextDueAt: { $gte: NEVER_DUE_UNCHECKED, $lte: NEVER_DUE_UNCHECKED } }],
        },
        after,
        wanted,
      ),

    /** These contracts' schedules as they stand now (a page just claimed: another call may have moved them). */
    current(contractIds: ObjectId[]) {
      if (contractIds.length === 0) return Promise.resolve([]);
      return schedules.find({ _id: { $in: contractIds } }).toArray();
    },

    async advance(contractId: ObjectId, nextDueAt: Date) {
      await schedules.updateOne({ _id: contractId, nextDueAt: { $lt: nextDueAt } }, { $set: { nextDueAt } });
    },

    /** Advances each of these schedules as `advance` does, in one command (a billing batch's). */
    async advanceMany(moves: { contractId: ObjectId; nextDueAt: Date }[]) {
      if (moves.length === 0) return;
      await schedules.bulkWrite(
        moves.map(({ contractId, nextDueAt }) => ({
          updateOne: { filter: { _id: contractId, nextDueAt: { $lt: nextDueAt } }, update: { $set: { nextDueAt } } },
        })),
        { ordered: false },
      );
    },

    /** Ended contracts whose schedule an earlier version wrote (see ScheduleDoc.checkedFromStart). */
    endedUnchecked(accountId: string, limit: number) {
      return schedules
        .find({ accountId, nextDueAt: { $gte: NEVER_DUE_UNCHECKED, $lte: NEVER_DUE_UNCHECKED } })
        .sort({ nextDueAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
    },

    /**
     * Moves an older schedule back to `to`, before the contract's first cycle, so that runs check every cycle
     * against the stored invoices and make those missing; done once (it marks the schedule).
     */
    async rewind(contractId: ObjectId, to: Date) {
      await schedules.updateOne(
        { _id: contractId, nextDueAt: { $gt: to } },
        { $set: { nextDueAt: to, checkedFromStart: true } },
      );
    },

    /** For a schedule whose contract was never stored (its creation stopped in between). */
    async unschedule(contractId: ObjectId) {
      await schedules.deleteOne({ _id: contractId });
    },

    async recordFailure(failure: Omit<BillingFailureDoc, "createdAt">) {
      try {
        await failures.insertOne({ ...failure, createdAt: new Date() });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        await failures.updateOne(
          { _id: failure._id },
          { $set: { message: failure.message, retryAt: failure.retryAt } },
        );
      }
    },

    failuresToRetry(accountId: string, now: Date, limit: number) {
      return failures
        .find({ accountId, retryAt: { $lte: now } })
        .sort({ retryAt: 1 })
        .limit(limit)
        .toArray();
    },

    /** Accounts after `after` with a failure to retry by `now`, in id order (as accountsWithSchedulesDue). */
    accountsWithFailuresToRetry: (after: string | undefined, now: Date, wanted: number) =>
      accountsHolding(failures, { retryAt: { $lte: now } }, after, wanted),

    /** Which of these contracts (at most a page of them) have a cycle that failed to bill and is not billed yet. */
    async failingContracts(accountId: string, contractIds: string[]): Promise<Set<string>> {
      if (contractIds.length === 0) return new Set();
      const found = await failures
        .find({ accountId, contractId: { $in: contractIds } }, { projection: { contractId: 1 } })
        .toArray();
      return new Set(found.map(({ contractId }) => contractId));
    },

    async clearFailure(id: string) {
      await failures.deleteOne({ _id: id });
    },

    async openPayment(payment: Omit<PendingPaymentDoc, "createdAt">) {
      // Already opened by an earlier try of this finalization: the same debit.
      await wonInsert(payments.insertOne({ ...payment, createdAt: new Date() }));
    },

    async closePayment(invoiceId: ObjectId) {
      await payments.deleteOne({ _id: invoiceId });
    },

    /**
     * openPayment of several invoices in one command (a billing batch's): each opened once, by its `_id`. The ids of
     * those this call opened (the others were open already: an earlier or concurrent try of their finalization).
     */
    async openPayments(opening: Omit<PendingPaymentDoc, "createdAt">[]): Promise<Set<string>> {
      if (opening.length === 0) return new Set();
      const createdAt = new Date();
      const docs = opening.map((payment) => ({ ...payment, createdAt }));
      const won = await wonInserts(payments.insertMany(docs, { ordered: false }), docs.length);
      return new Set([...won].map((index) => opening[index]?._id.toHexString() ?? ""));
    },

    /** closePayment of several invoices in one command. */
    async closePayments(invoiceIds: ObjectId[]) {
      if (invoiceIds.length > 0) await payments.deleteMany({ _id: { $in: invoiceIds } });
    },

    /** Accounts after `after` with a pending payment, in id order (as accountsWithSchedulesDue). */
    accountsWithPendingPayments: (after: string | undefined, wanted: number) =>
      accountsHolding(payments, {}, after, wanted),

    pendingPayments(accountId: string, limit: number) {
      return payments.find({ accountId }).sort({ createdAt: 1 }).limit(limit).toArray();
    },
  };
}
