import type { Db } from "mongodb";
import { accountsHolding } from "../db/accounts-holding.js";
import { changedSince } from "../db/changed-since.js";
import { wonInsert } from "../db/duplicate-key.js";
import { canonicalId } from "../db/ids.js";
import type { Recurrence } from "../domain/credit-recurrence.js";
import type { Micros } from "../domain/money/micros.js";

/**
 * A recurring grant: what each period's grant is (amount, currency, priority, references) and when periods start.
 * `_id`: a `POST /credits` recurrence's own id (an ObjectId's hex), or `<contractId>/<index>` for a contract's
 * `creditGrants[index]`. `issuedThrough` and `nextDueAt` are hints kept by issuance (the ledger's unique entry ids
 * decide what is issued): a lost or stale update only makes a later pass look at a period again and find it issued.
 */
export interface RecurrenceDoc extends Recurrence {
  _id: string;
  accountId: string;
  customerId: string;
  amountMicros: Micros;
  currency: string;
  priority: number;
  contractId?: string;
  erpId?: string;
  invoiceId?: string;
  /** A contract's grant: issued only while the contract is billed. */
  ofContract: boolean;
  /** No period is issued after this one (a contract's grant removed by an update). */
  stoppedAfter?: number;
  issuedThrough: number;
  /** When the next period not issued yet starts; null: no more. */
  nextDueAt: Date | null;
  createdAt: Date;
}

/** The terms a recurring grant may leave out: removed when a new statement of it does. */
const OPTIONAL_TERMS = ["count", "rolloverMaxMicros", "expiresAfter", "stoppedAfter"] as const;

/**
 * The cancellation of a recurring grant of `POST /credits` (collection `creditRecurrenceStops`), keyed by the recurring
 * grant's id: of concurrent cancellations one insert wins, and no update of the recurring grant (issuance's notes, on
 * an engine that loses concurrent updates) can lose it. No period after `lastPeriod` is issued.
 */
export interface RecurrenceStopDoc {
  _id: string;
  accountId: string;
  lastPeriod: number;
  canceledAt: Date;
  /** When the insert was made (the server's clock; `canceledAt` is the account's billing time): the sweep reads it. */
  recordedAt?: Date;
}

/**
 * A recurring grant as its writer has read it: with its customer, the collection's shard key (`{ accountId: 1,
 * customerId: 1 }`, db/shard-plan.ts), so that a cluster routes the write to one shard. The `_id` decides which grant.
 */
type RecurrenceRef = Pick<RecurrenceDoc, "_id" | "customerId">;
const refFilter = (accountId: string, { _id, customerId }: RecurrenceRef) => ({
  _id,
  accountId,
  customerId: canonicalId(customerId),
});

/**
 * The recurring grants (collection `credit_recurrences`), issued period by period (services/credit-recurrences.ts),
 * and their cancellations (`creditRecurrenceStops`).
 */

export function createCreditRecurrenceRepository(db: Db) {
  const recurrences = db.collection<RecurrenceDoc>("credit_recurrences");
  const stops = db.collection<RecurrenceStopDoc>("creditRecurrenceStops");

  return {
    async ensureIndexes() {
      // The recurrences due by now across accounts: the background issuer.
      await recurrences.createIndex({ nextDueAt: 1 });
      // An account's due recurrences (a test clock's advance) and a customer's (its reads and payments).
      await recurrences.createIndex({ accountId: 1, customerId: 1, nextDueAt: 1 });
      await recurrences.createIndex({ accountId: 1, nextDueAt: 1 });
      // A contract's grants (an update replacing them), with the contract's customer: on a cluster keyed
      // `{ accountId: 1, customerId: 1 }` the read goes to the customer's shard (replaces `accountId_1_contractId_1`).
      await recurrences.dropIndex("accountId_1_contractId_1").catch(() => undefined);
      await recurrences.createIndex({ accountId: 1, customerId: 1, contractId: 1 });
      // The cancellations recorded lately: the webhook sweep.
      await stops.createIndex({ recordedAt: 1 });
    },

    /**
     * Stores a recurring grant, or replaces its terms (a contract's update): `issuedThrough` is kept, and `nextDueAt`
     * (the first period's start) makes issuance look at it again.
     */
    async put(doc: Omit<RecurrenceDoc, "issuedThrough" | "createdAt">): Promise<void> {
      const { _id, nextDueAt, ...given } = { ...doc, issuedThrough: undefined, createdAt: undefined };
      // Terms left out are not stored (the driver would store them as null).
      const terms = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
      const update = {
        $set: { ...terms, customerId: canonicalId(doc.customerId), nextDueAt },
        $setOnInsert: { issuedThrough: 0, createdAt: new Date() },
      };
      // Optional terms the new ones leave out are removed (a rollover or a count dropped by an update of a contract's
      // grants); a contract's grant given again after an update removed it issues again (stoppedAfter).
      const dropped = OPTIONAL_TERMS.filter((field) => doc[field] === undefined);
      const unset =
        dropped.length > 0 ? { $unset: Object.fromEntries(dropped.map((field) => [field, "" as const])) } : {};
      // With the shard key's fields: on a sharded cluster an upsert must name its whole shard key (and is routed).
      const filter = { _id, accountId: doc.accountId, customerId: canonicalId(doc.customerId) };
      await recurrences.updateOne(filter, { ...update, ...unset }, { upsert: true });
    },

    /** The contract's recurring grants (not the grants of `POST /credits` that name it); the contract's customer. */
    ofContract: async (accountId: string, customerId: string, contractId: string) =>
      (await recurrences.find({ accountId, customerId: canonicalId(customerId), contractId }).toArray()).filter(
        (doc) => doc.ofContract,
      ),

    /** Removes a recurring grant whose first period the ledger refused. */
    async remove(accountId: string, recurrence: RecurrenceRef): Promise<void> {
      await recurrences.deleteOne(refFilter(accountId, recurrence));
    },

    /**
     * The account's recurring grant `id`; with its customer when the caller knows it (the collection's shard key:
     * routed on a cluster).
     */
    get: (accountId: string, id: string, customerId?: string) =>
      recurrences.findOne({
        _id: id,
        accountId,
        ...(customerId !== undefined && { customerId: canonicalId(customerId) }),
      }),

    /** The cancellation of the account's recurring grant `id`, if any. */
    stopOf: (accountId: string, id: string) => stops.findOne({ _id: id, accountId }),

    /** Cancels a recurring grant after period `lastPeriod`: true when this call's insert won (false: done before). */
    async cancel(accountId: string, id: string, lastPeriod: number, canceledAt: Date): Promise<boolean> {
      return wonInsert(stops.insertOne({ _id: id, accountId, lastPeriod, canceledAt, recordedAt: new Date() }));
    },

    /** The cancellations recorded at or after `since`, across accounts, oldest first (the webhook sweep). */
    canceledSince: (since: Date, limit: number) => changedSince(stops, "recordedAt", since, limit, (stop) => stop),

    /** Stops a recurring grant after period `period`. */
    async stop(accountId: string, recurrence: RecurrenceRef, period: number): Promise<void> {
      await recurrences.updateOne(refFilter(accountId, recurrence), { $set: { stoppedAfter: period } });
    },

    /** The customer's recurring grants with a period due by `now`. */
    dueForCustomer: (accountId: string, customerId: string, now: Date, limit: number) =>
      recurrences
        .find({ accountId, customerId: canonicalId(customerId), nextDueAt: { $lte: now } })
        .sort({ nextDueAt: 1 })
        .limit(limit)
        .toArray(),

    /** Which of these customers have a recurring grant with a period due by `now` (a billing batch's look). */
    async customersWithDue(accountId: string, customerIds: string[], now: Date): Promise<Set<string>> {
      if (customerIds.length === 0) return new Set();
      const found = await recurrences
        .find(
          { accountId, customerId: { $in: customerIds.map(canonicalId) }, nextDueAt: { $lte: now } },
          { projection: { customerId: 1 } },
        )
        .toArray();
      return new Set(found.map(({ customerId }) => customerId));
    },

    /** The account's recurring grants with a period due by `now`, the earliest first. */
    dueForAccount: (accountId: string, now: Date, limit: number) =>
      recurrences
        .find({ accountId, nextDueAt: { $lte: now } })
        .sort({ nextDueAt: 1 })
        .limit(limit)
        .toArray(),

    /** Accounts after `after` with a recurring grant due by `now`, in id order: the billing scheduler's look. */
    accountsWithDue: (after: string | undefined, now: Date, wanted: number) =>
      accountsHolding(recurrences, { nextDueAt: { $lte: now } }, after, wanted),

    /** Recurring grants of any account with a period due by `now`, the earliest first: the background issuer's. */
    due: (now: Date, limit: number) =>
      recurrences
        .find({ nextDueAt: { $lte: now } })
        .sort({ nextDueAt: 1 })
        .limit(limit)
        .toArray(),

    /** The earliest period start of the account's recurring grants after `after` (any, when undefined). */
    async nextDue(accountId: string, after: Date | undefined): Promise<Date | undefined> {
      const filter = { accountId, nextDueAt: { $gt: after ?? new Date(0) } };
      const doc = await recurrences.findOne(filter, { sort: { nextDueAt: 1 }, projection: { nextDueAt: 1 } });
      return doc?.nextDueAt ?? undefined;
    },

    /** Notes how far issuance got: a hint (see RecurrenceDoc). */
    async noteIssued(accountId: string, recurrence: RecurrenceRef, issuedThrough: number, nextDueAt: Date | null) {
      await recurrences.updateOne(refFilter(accountId, recurrence), { $set: { issuedThrough, nextDueAt } });
    },
  };
}
export type CreditRecurrenceRepository = ReturnType<typeof createCreditRecurrenceRepository>;
