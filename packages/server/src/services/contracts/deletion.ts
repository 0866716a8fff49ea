import { contractAsOf } from "../../domain/contracts/lifecycle.js";
import { lifecycleEventsOf } from "../../domain/contracts/lifecycle-events.js";
import { type LifecycleEntry, statusOnDeletion } from "../../domain/contracts/status.js";
import { notFound } from "../../domain/errors.js";
import { presentContract } from "../../presenters/contracts.js";
import type { ContractDeletionDoc } from "../../repositories/contracts.js";
import type { CallScope } from "../call-scope.js";
import { readContractIncludingDeleted } from "../contract-reads.js";
import { publishChange } from "../webhook-events.js";
import { recordMrrCurve } from "./mrr.js";
import { entryOf, SYSTEM, stateOf } from "./timed-changes.js";

/** A contract's deletion: claimed once (a unique insert), logged as one change of the contract, published. */

/** Who made a deletion recorded before its record kept its token. */
const UNKNOWN_DELETER = "unknown";

/** A deletion has this many tries to log itself against concurrent changes of its contract. */
const MAX_DELETION_ATTEMPTS = 50;

/**
 * Logs a recorded deletion as one change of the contract, by the contract's machine: time's changes due by its
 * `deletedAt` first (by `system`), then the deletion, which ends the contract Terminated where the machine lets it
 * become Terminated (statusOnDeletion: a final contract, Expired or Terminated, keeps its status). Whoever completes
 * the deletion logs this same change; once logged, the contract reads deleted. The entries this call logged (none
 * when another call had).
 */
async function logDeletion(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  deletion: ContractDeletionDoc,
): Promise<LifecycleEntry[]> {
  const contractId = deletion._id.toHexString();
  for (let attempt = 1; attempt <= MAX_DELETION_ATTEMPTS; attempt += 1) {
    const found = await repositories.contracts.getForChange(accountId, contractId);
    if (!found) return [];
    const { contract, changes } = contractAsOf(found.stored, deletion.deletedAt);
    const status = statusOnDeletion(contract.status);
    const entries: LifecycleEntry[] = [
      ...changes.map((timed) => entryOf(timed, SYSTEM)),
      {
        at: deletion.deletedAt.toISOString(),
        kind: "deletion",
        ...(status !== contract.status && { from: contract.status, to: status }),
        by: deletion.by ?? UNKNOWN_DELETER,
      },
    ];
    const state = stateOf({ ...contract, status });
    if (
      await repositories.contracts.logDeletion(accountId, contractId, found.version, entries, state, deletion.deletedAt)
    )
      return entries;
  }
  throw new Error(`contract ${contractId} changed ${MAX_DELETION_ATTEMPTS} times while its deletion was logged`);
}

/**
 * Deletes the contract (404 when it is not a live contract of the account): of concurrent deletions one answers it,
 * the others complete it and answer 404. Publishes the events of what it logged (time's changes, `contract.deleted`).
 */
export async function deleteContract(call: CallScope & { holder: { tokenId: string } }, contractId: string) {
  const { repositories, accountId, log } = call;
  const claimed = await repositories.contracts.claimDeletion(accountId, contractId, call.holder.tokenId);
  if (!claimed) throw notFound("Contract");
  const logged = await logDeletion(call, claimed.deletion);
  const found = claimed.won && (await readContractIncludingDeleted(repositories, accountId, contractId));
  if (!found) throw notFound("Contract");
  await recordMrrCurve(call, found, "deleted", { deletedAt: claimed.deletion.deletedAt });
  const deleted = presentContract(found);
  const announced: Pick<LifecycleEntry, "kind">[] = logged.length > 0 ? logged : [{ kind: "deletion" }];
  for (const type of lifecycleEventsOf(announced))
    await publishChange(repositories, accountId, log, { type, data: deleted });
  return deleted;
}
