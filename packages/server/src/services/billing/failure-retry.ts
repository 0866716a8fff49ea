import { BILLED_CONTRACT_STATUSES as BILLABLE } from "@billing/shared";
import { plannedInvoiceByKey } from "../../domain/billing/items.js";
import type { BillingFailureDoc } from "../../repositories/billing-runs.js";
import { paymentTermsOf } from "./invoice-basis.js";
import type { BillingPass } from "./pass.js";

/** A failed invoice, tried again; dropped when its contract is no longer billed. */
export async function retryFailure(pass: BillingPass, failure: BillingFailureDoc) {
  const { repositories, accountId } = pass;
  const contract = await repositories.contracts.get(accountId, failure.contractId);
  const planned =
    contract && BILLABLE.has(contract.status)
      ? plannedInvoiceByKey(contract, failure.cycleKey, failure.cycleStart)
      : undefined;
  if (!contract || !planned) return repositories.billingRuns.clearFailure(failure._id);
  if (await pass.bill(contract, planned, await paymentTermsOf(repositories, accountId, contract)))
    await repositories.billingRuns.clearFailure(failure._id);
}
