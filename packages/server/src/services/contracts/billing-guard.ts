import type { ContractLifeFields } from "../../domain/billing/contract.js";
import type { CallScope } from "../call-scope.js";

/**
 * What a billing run asks before it finalizes an invoice priced from a contract it read: whether a change of that
 * contract is under way or was made since (commit.ts announces each change before it checks what is invoiced).
 */

/** A change announced longer ago than this and still in flight belongs to a process that stopped. */
const CHANGE_ABANDONED_AFTER_MS = 10 * 60_000;

/** Changes announced since then are taken as under way: older ones belong to a process that stopped. */
const changesFrom = () => new Date(Date.now() - CHANGE_ABANDONED_AFTER_MS);

/** Whether a change of the contract is under way (commit.ts), announced within CHANGE_ABANDONED_AFTER_MS. */
export const contractChanging = async ({ repositories, accountId }: CallScope, contractId: string) =>
  (await repositories.contractChangesInFlight.changingAmong(accountId, [contractId], changesFrom())).size > 0;

/**
 * Which of these contracts have changed since they were read (`reads`), or are changing (commit.ts): a billing run
 * that priced invoices from them and stored them asks this before finalizing them as priced, for all of them at once
 * (three reads). Changes in flight are looked at first: one that ends between the two reads is then seen applied.
 */
export async function changedSinceRead(
  { repositories, accountId }: CallScope,
  reads: ContractLifeFields[],
): Promise<Set<string>> {
  const ids = [...new Set(reads.map(({ id }) => id))];
  const changing = await repositories.contractChangesInFlight.changingAmong(accountId, ids, changesFrom());
  const now = await repositories.contracts.updatedAtOf(accountId, ids);
  const changed = reads.filter((read) => changing.has(read.id) || now.get(read.id) !== read.updatedAt);
  return new Set(changed.map(({ id }) => id));
}
