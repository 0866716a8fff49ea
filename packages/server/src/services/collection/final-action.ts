import type { DunningPolicy, DunningStep } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { startOfUtcDay } from "../../domain/billing/cycles.js";
import { isOwing } from "../../domain/invoices/life.js";
import type { CallScope } from "../call-scope.js";
import { updateContract } from "../contracts/update.js";
import { changeInvoice } from "../invoices/changes.js";
import { publishStep } from "./charge.js";

/** Who the contract's history names for a pause dunning made. */
const DUNNING = "dunning";

/**
 * The dunning policy's final action after the last step, once per invoice (its step is taken by a unique insert),
 * only while something is still due:
 * - `MARK_UNCOLLECTIBLE`: one UNCOLLECTIBLE change of the invoice's log (billingStatus `Uncollectible`; a payment or
 *   credit note leaving nothing due still closes it), announced as `invoice.marked_uncollectible`;
 * - `PAUSE_CONTRACTS`: each Active contract of the invoice's customer paused (Inactive) from today, or from where it
 *   is invoiced up to when that is later (a pause never reaches into an invoiced period);
 * - `NONE`: nothing.
 */
export async function applyFinalAction(
  call: CallScope,
  action: DunningPolicy["finalAction"],
  invoiceId: string,
  step: DunningStep,
) {
  if (action === "NONE") return;
  const stored = await changeInvoice(call, invoiceId, ({ life }) =>
    action === "MARK_UNCOLLECTIBLE" && isOwing(life) && !life.uncollectibleAt
      ? { kind: "UNCOLLECTIBLE", at: new Date(step.at) }
      : undefined,
  );
  if (!isOwing(stored.life)) return;
  if (action === "MARK_UNCOLLECTIBLE") {
    await publishStep(call, "invoice.marked_uncollectible", stored.invoice, step);
    return;
  }
  await pauseContracts(call, stored.invoice.customerId);
}

async function pauseContracts(call: CallScope, customerId: string) {
  const { repositories, accountId } = call;
  const today = startOfUtcDay(billingNow(accountId));
  for (const contract of await repositories.contracts.ofCustomer(accountId, customerId)) {
    if (contract.status !== "Active") continue;
    const invoicedTo = await repositories.invoices.lastCycleEnd(accountId, contract.id);
    const from = invoicedTo && invoicedTo > today ? invoicedTo : today;
    try {
      await updateContract(call, contract.id, { status: "Inactive", effectiveFrom: from.toISOString() }, DUNNING);
    } catch (error) {
      // One contract refusing (changed meanwhile) leaves the others paused; the error is logged, not retried.
      call.log.error({ err: error, contractId: contract.id }, "dunning could not pause a contract");
    }
  }
}
