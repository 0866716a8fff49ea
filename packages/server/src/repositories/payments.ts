import type { Db, ObjectId } from "mongodb";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { routedById } from "../db/find-owned.js";
import type { Micros } from "../domain/money/micros.js";

/**
 * A payment provider's transaction id, claimed by the payment that first named it. The payment itself is an entry of
 * its invoice's change log (invoice-changes.ts); this claim only makes its `transactionId` once per account.
 */
interface TransactionClaimDoc {
  _id: ObjectId;
  accountId: string;
  transactionId: string;
  /** The payment the claim is for, and what it pays: a request repeating the claim completes that payment. */
  paymentId: string;
  invoiceId: string;
  amountMicros: Micros;
  createdAt: Date;
}

export type TransactionClaim = Omit<TransactionClaimDoc, "_id" | "createdAt">;

/**
 * Payments' transaction ids: the unique index on (account, transactionId) decides which payment records one, whatever
 * the number of concurrent requests and instances (an insert, never an update: see docs/decisions.md).
 */
export function createPaymentRepository(db: Db) {
  const claims = db.collection<TransactionClaimDoc>("payment_transactions");

  return {
    async ensureIndexes() {
      // Unique: a transaction id is recorded once per account.
      await claims.createIndex({ accountId: 1, transactionId: 1 }, { unique: true });
    },

    /** Claims the transaction id for the payment: `claimed: false` with the claim that holds it when one does. */
    async claimTransaction(
      claim: TransactionClaim & { _id: ObjectId },
    ): Promise<{ claimed: true } | { claimed: false; holder: TransactionClaim | undefined }> {
      try {
        await claims.insertOne({ ...claim, createdAt: new Date() });
        return { claimed: true };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        const holder = await claims.findOne(
          { accountId: claim.accountId, transactionId: claim.transactionId },
          { projection: { _id: 0, createdAt: 0 } },
        );
        return { claimed: false, holder: holder ?? undefined };
      }
    },

    /** The claim of a transaction id: which invoice a provider's payment paid (a dispute names only the payment). */
    async ofTransaction(accountId: string, transactionId: string): Promise<TransactionClaim | undefined> {
      const claim = await claims.findOne({ accountId, transactionId }, { projection: { _id: 0, createdAt: 0 } });
      return claim ?? undefined;
    },

    /**
     * Gives the transaction id up: its payment was refused before it was recorded. By `_id`, with the key's fields on
     * a sharded cluster (routedById), so that mongos sends it to the claim's shard.
     */
    async releaseTransaction({
      _id,
      accountId,
      transactionId,
    }: {
      _id: ObjectId;
      accountId: string;
      transactionId: string;
    }) {
      await claims.deleteOne(routedById(claims, { _id }, { accountId, transactionId }));
    },
  };
}
export type PaymentRepository = ReturnType<typeof createPaymentRepository>;
