import type { ContractLifeFields } from "../../domain/billing/contract.js";
import { shownStatus } from "../../domain/contracts/status.js";
import type { CallScope } from "../call-scope.js";
import { entryOf, loadForChange, SYSTEM } from "./timed-changes.js";

/** A contract has a few changes a term: its history answers at most this many (the oldest). */
export const HISTORY_LIMIT = 1_000;

/** The contracts as reads show them: `Error` while a cycle of theirs has failed to bill (see shownStatus). */
export async function withBillingErrors<C extends ContractLifeFields>(
  { repositories, accountId }: CallScope,
  contracts: C[],
): Promise<C[]> {
  const failing = await repositories.billingRuns.failingContracts(
    accountId,
    contracts.map(({ id }) => id),
  );
  return contracts.map((contract) => ({ ...contract, status: shownStatus(contract.status, failing.has(contract.id)) }));
}

/**
 * The contract's transitions and renewals, in order: those recorded, then those time made that no run or change has
 * recorded yet (so the history agrees with the contract as read).
 */
export async function contractHistory(call: CallScope, contractId: string) {
  const { current, due } = await loadForChange(call, contractId);
  const recorded = await call.repositories.contractTransitions.history(call.accountId, current.id, HISTORY_LIMIT);
  return [...recorded, ...due.map((timed) => entryOf(timed, SYSTEM))];
}
