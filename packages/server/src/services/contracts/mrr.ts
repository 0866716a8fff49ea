import type { ContractInMicros } from "../../domain/billing/contract.js";
import { recurringCurve } from "../../domain/reports/mrr.js";
import type { MrrTerms } from "../../domain/reports/mrr-net.js";
import type { CallScope } from "../call-scope.js";
import { couponsOf } from "../contract-reads.js";
import { taxTermsOf } from "../tax-terms.js";

/** A deletion's curve is the contract's last: it wins over every change's. */
const DELETION_SEQ = Number.MAX_SAFE_INTEGER;

/** The tax terms the contract's charges are priced under now, and its coupons: what nets its MRR (mrr-net.ts). */
async function mrrTermsOf(
  { repositories, accountId }: Pick<CallScope, "repositories" | "accountId">,
  contract: ContractInMicros,
): Promise<MrrTerms> {
  const [tax, coupons] = await Promise.all([
    taxTermsOf(repositories, accountId, contract, []),
    couponsOf(repositories, accountId, contract),
  ]);
  return { tax, coupons };
}

/**
 * Writes the MRR ledger's curve of the contract as its change number `seq` left it (repositories/mrr-ledger.ts):
 * after creation (0), after each change it commits (its last entry's number), after its deletion (last of all), and
 * after a coupon's redemption (`revision`: the contract's redemptions then, under its current number). Net of its
 * recurring discounts and coupons and of inclusive tax, under its tax rates as they are now. Written after the change,
 * keyed by it: a crash between the two leaves the curve of the change before until the contract's next change
 * (docs/decisions.md, "MRR").
 */
export async function recordMrrCurve(
  call: Pick<CallScope, "repositories" | "accountId">,
  contract: ContractInMicros,
  seq: number | "deleted",
  { deletedAt, revision }: { deletedAt?: Date; revision?: number } = {},
): Promise<void> {
  const points = recurringCurve(contract, deletedAt, await mrrTermsOf(call, contract));
  await call.repositories.mrrLedger.recordCurve(call.accountId, contract.currency, {
    contractId: contract.id,
    customerId: contract.customerId,
    seq: seq === "deleted" ? DELETION_SEQ : seq,
    ...(revision !== undefined && { revision }),
    points,
  });
}
