import { DAY_MS } from "../../domain/billing/cycles.js";
import type { PlannedInvoice } from "../../domain/billing/items.js";
import { invoiceIdFor } from "./invoice-id.js";
import type { BillingPass } from "./pass.js";
import { priceCycle } from "./price-cycle.js";
import type { ContractPlan } from "./scheduling.js";

/** The key of a look after a contract's end: its adjustment invoices' ids derive from it (adjustmentKey). */
export const lookKey = (lookAt: Date) => `after-end/${lookAt.toISOString()}`;

/**
 * Late usage after a contract's last invoice (issue 45): NEXT_INVOICE has no next invoice to carry it, so under every
 * policy but IGNORE the look at `lookAt` (scheduling.ts, domain/billing/late-after-end.ts) prices the contract's last
 * invoices within the window again, as a next cycle would (late-usage.ts lateUsageOf, on a cycle of no charge that
 * starts at the look), and bills a positive difference on an ADJUSTMENT invoice per original
 * (adjustment-invoices.ts: once per look, original and place n, whatever the instances), a negative one as a
 * USAGE_CORRECTION credit note. Nothing else is priced or stored. False when it failed (logged; the schedule stays
 * on the look, so the next run does it again).
 */
export async function adjustAfterEnd(pass: BillingPass, plan: ContractPlan, lookAt: Date): Promise<boolean> {
  const { repositories, accountId, at, log } = pass;
  const { contract, paymentTerms } = plan;
  const key = lookKey(lookAt);
  // No charge of its own; a day long, as an invoice's cycle may not be empty (adjustment invoices take the original's).
  const end = new Date(lookAt.getTime() + DAY_MS);
  const look: PlannedInvoice = { key, start: lookAt, end, prepaid: false, charges: [], dueAt: at, readyAt: at };
  const invoiceId = invoiceIdFor(accountId, contract.id, key).toHexString();
  try {
    await priceCycle(repositories, accountId, contract, look, {
      paymentTerms,
      issuedAt: at,
      credits: "none",
      lateUsage: { invoiceId, at, log, apart: true, cycles: plan.cycles },
    });
    return true;
  } catch (error) {
    log.error(
      { err: error, accountId, contractId: contract.id, look: key },
      "could not adjust a contract after its end",
    );
    return false;
  }
}
