import { createHash } from "node:crypto";
import { ObjectId } from "mongodb";

/**
 * The id of a contract's invoice, derived from the contract and the invoice's key: every step of every run names
 * the same invoice, so the credit debit (keyed by invoice) happens once, and a debit left behind by a crash is found
 * again. Its bytes are a hash: it says nothing of order (lists follow the invoice's `seq`).
 */
export function invoiceIdFor(accountId: string, contractId: string, invoiceKey: string): ObjectId {
  const digest = createHash("sha256").update(`${accountId}/${contractId}/${invoiceKey}`).digest();
  return new ObjectId(digest.subarray(0, 12));
}
