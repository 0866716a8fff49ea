import type { Invoice } from "@billing/shared";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { PlannedInvoice } from "../../domain/billing/items.js";
import {
  type BilledLine,
  MAX_THRESHOLD_INVOICES,
  type ThresholdInvoiceBilled,
  thresholdKey,
} from "../../domain/billing/thresholds.js";
import { asMicros } from "../../domain/money/micros.js";
import { microsOf } from "../../presenters/money.js";
import type { Repositories } from "../../repositories/index.js";
import { invoiceIdFor } from "./invoice-id.js";

/** The cycle's threshold invoices so far: how many were made (voided ones too), and those not voided. */
export interface ThresholdInvoices {
  count: number;
  billed: ThresholdInvoiceBilled[];
}

/** A stored line as a threshold invoice billed it: its product (a THRESHOLD_BILLED line's: the one it took off). */
const billedLineOf = (line: Invoice["lineItems"][number]): BilledLine => ({
  product:
    line.kind === "THRESHOLD_BILLED" && line.adjusts ? line.adjusts.product : (line.catalogProductId ?? line.name),
  ...(line.catalogProductId !== undefined && { catalogProductId: line.catalogProductId }),
  chargedMicros: asMicros(
    microsOf(line.revenueBreakdown.subtotal) +
      microsOf(line.revenueBreakdown.overage) -
      microsOf(line.revenueBreakdown.discount),
  ),
  ...(line.taxes.length > 0 && { taxRateCodes: line.taxes.map((tax) => tax.code) }),
});

/**
 * The threshold invoices of a contract's cycle (docs/decisions.md, "Threshold billing"): the n-th has the id derived
 * from `thresholdKey(cycle, n)`, so they are point reads of n = 1, 2, … until one is missing (one read more than
 * there are). A contract without thresholds reads nothing.
 */
export async function thresholdInvoicesOf(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  cycle: PlannedInvoice,
): Promise<ThresholdInvoices> {
  const found: ThresholdInvoices = { count: 0, billed: [] };
  if (!contract.billingThresholdsMicros?.length || cycle.prepaid) return found;
  for (let n = 1; n <= MAX_THRESHOLD_INVOICES; n += 1) {
    const id = invoiceIdFor(accountId, contract.id, thresholdKey(cycle.key, n)).toHexString();
    const invoice = await repositories.invoices.get(accountId, id);
    if (!invoice) break;
    found.count = n;
    if (invoice.status === "VOIDED") continue;
    const lines = invoice.lineItems.filter((line) => line.kind !== "LATE_USAGE").map(billedLineOf);
    found.billed.push({ invoiceId: invoice.id, number: invoice.number, lines });
  }
  return found;
}
