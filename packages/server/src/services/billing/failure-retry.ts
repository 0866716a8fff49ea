import { plannedInvoiceByKey } from "../../domain/billing/items.js";
import { billedContract } from "../../domain/contracts/billed.js";
import { withoutPausedCharges } from "../../domain/contracts/pauses.js";
import type { BillingFailureDoc } from "../../repositories/billing-runs.js";
import { readContract } from "../contract-reads.js";
import { paymentTermsOf } from "./invoice-basis.js";
import type { BillingPass } from "./pass.js";

/** A failed invoice, tried again as runs bill it now (pauses, termination); dropped when it bills nothing now. */
export async function retryFailure(pass: BillingPass, failure: BillingFailureDoc) {
  const { repositories, accountId } = pass;
  const found = await readContract(repositories, accountId, failure.contractId);
  const contract = found && billedContract(found);
  const cycle = contract && plannedInvoiceByKey(contract, failure.cycleKey, failure.cycleStart);
  const [planned] = contract && cycle ? withoutPausedCharges(contract, [cycle]) : [];
  if (!contract || !planned) return repositories.billingRuns.clearFailure(failure._id);
  if (await pass.bill(contract, planned, await paymentTermsOf(repositories, accountId, contract)))
    await repositories.billingRuns.clearFailure(failure._id);
}
