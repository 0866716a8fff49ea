import { type Db, ObjectId } from "mongodb";
import { accountsHolding } from "../db/accounts-holding.js";
import { canonicalId } from "../db/ids.js";

/** A grant's expiry, for billing runs to write it even when nothing else touches the customer's ledger. */
interface ExpiryDoc {
  _id: ObjectId;
  accountId: string;
  customerId: string;
  expiresAt: Date;
}

/**
 * The expiries of grants, noted when the grant is made (services/credit-ledger.ts grantCredits), so that billing runs
 * write each expiration (expireDueCredits) even for a customer whose ledger nothing else touches.
 */
export function createCreditExpiryRepository(db: Db) {
  const expiries = db.collection<ExpiryDoc>("credit_expiries");

  return {
    async ensureIndexes() {
      // The expiries that have come, for billing runs.
      await expiries.createIndex({ accountId: 1, expiresAt: 1 });
    },

    /** Notes when a grant of the customer expires: the note's id. */
    async note(accountId: string, customerId: string, expiresAt: Date): Promise<ObjectId> {
      const { insertedId } = await expiries.insertOne({
        _id: new ObjectId(),
        accountId,
        customerId: canonicalId(customerId),
        expiresAt,
      });
      return insertedId;
    },

    /** The account's expiries that have come by `now`, the earliest first, at most `limit`. */
    due: (accountId: string, now: Date, limit: number) =>
      expiries
        .find({ accountId, expiresAt: { $lte: now } })
        .sort({ expiresAt: 1 })
        .limit(limit)
        .toArray(),

    /** Accounts after `after` with an expiry come by `now`, in id order: the billing scheduler's look for work. */
    accountsWithDue: (after: string | undefined, now: Date, wanted: number) =>
      accountsHolding(expiries, { expiresAt: { $lte: now } }, after, wanted),

    /**
     * The earliest expiry of the account not yet written that comes after `after` (any, when undefined): where a test
     * clock's advance stops to write it (services/billing/test-clock/due-work.ts).
     */
    async nextExpiry(accountId: string, after: Date | undefined): Promise<Date | undefined> {
      const filter = { accountId, ...(after && { expiresAt: { $gt: after } }) };
      return (await expiries.findOne(filter, { sort: { expiresAt: 1 }, projection: { expiresAt: 1 } }))?.expiresAt;
    },

    /** Removes a note: its expiration is written, or its grant was refused. */
    async drop(noteId: ObjectId): Promise<void> {
      await expiries.deleteOne({ _id: noteId });
    },
  };
}
