import type { ContractInMicros } from "../../domain/billing/contract.js";
import { recurringCurve } from "../../domain/reports/mrr.js";
import type { CallScope } from "../call-scope.js";

/** A deletion's curve is the contract's last: it wins over every change's. */
const DELETION_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * Writes the MRR ledger's curve of the contract as its change number `seq` left it (repositories/mrr-ledger.ts):
 * after creation (0), after each change it commits (its last entry's number), after its deletion (last of all).
 * Written after the change, keyed by it: a crash between the two leaves the curve of the change before until the
 * contract's next change (docs/decisions.md, "MRR").
 */
export async function recordMrrCurve(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  contract: ContractInMicros,
  seq: number | "deleted",
  deletedAt?: Date,
): Promise<void> {
  const points = recurringCurve(contract, deletedAt);
  await repositories.mrrLedger.recordCurve(accountId, contract.currency, {
    contractId: contract.id,
    customerId: contract.customerId,
    seq: seq === "deleted" ? DELETION_SEQ : seq,
    points,
  });
}
