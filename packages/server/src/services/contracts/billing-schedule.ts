import { ObjectId } from "mongodb";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import { BEFORE_EVERYTHING } from "../../domain/billing/cycles.js";
import { billingTimeline } from "../../domain/billing/items.js";
import { billedContract } from "../../domain/contracts/billed.js";
import { NEVER_DUE } from "../../repositories/billing-runs.js";
import type { Repositories } from "../../repositories/index.js";

/** What a change of a contract tells billing runs: from when to look at the contract (again). */

/** Records when a new contract's first invoice can fall due: runs find the contract from then on. */
export async function scheduleBilling(repositories: Repositories, accountId: string, contract: ContractInMicros) {
  const billed = billedContract(contract);
  const firstDue = billed ? billingTimeline(billed, BEFORE_EVERYTHING).nextDueAt : undefined;
  const contractId = new ObjectId(contract.id);
  await repositories.billingRuns.schedule(accountId, contractId, contract.customerId, firstDue ?? NEVER_DUE);
}

/**
 * After a change of a contract's lifecycle from `from` on: runs look at its invoices ready from then again (a
 * contract made Active from InReview, from its first; those already made are found made).
 */
export async function rescheduleFrom(repositories: Repositories, contractId: string, from: Date) {
  await repositories.billingRuns.rewind(new ObjectId(contractId), from);
}
