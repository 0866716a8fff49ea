import type { ContractLifeFields } from "../../domain/billing/contract.js";
import type { CallScope } from "../call-scope.js";

/**
 * What a billing run asks before it finalizes an invoice priced from a contract it read: whether a change of that
 * contract is under way or was made since (commit.ts announces each change before it checks what is invoiced).
 */

/** A change announced longer ago than this and still in flight belongs to a process that stopped. */
const CHANGE_ABANDONED_AFTER_MS = 10 * 60_000;

/** Whether a change of the contract is under way (commit.ts), announced within CHANGE_ABANDONED_AFTER_MS. */
export const contractChanging = ({ repositories, accountId }: CallScope, contractId: string) =>
  repositories.contracts.changesInFlight(accountId, contractId, new Date(Date.now() - CHANGE_ABANDONED_AFTER_MS));

/**
 * Whether the contract has changed since `read` was read, or a change of it is under way (commit.ts): a
 * billing run that priced an invoice from `read` and stored it asks this before finalizing it as priced. Changes in
 * flight are looked at first: one that ends between the two reads is then seen applied.
 */
export async function changedSinceRead(call: CallScope, read: ContractLifeFields): Promise<boolean> {
  if (await contractChanging(call, read.id)) return true;
  const now = await call.repositories.contracts.getIncludingDeleted(call.accountId, read.id);
  return now?.updatedAt !== read.updatedAt;
}
