import { DEFAULT_LATE_USAGE, type Invoice } from "@billing/shared";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import { DAY_MS } from "../../domain/billing/cycles.js";
import type { PaymentTerms, PricedLine } from "../../domain/billing/invoice.js";
import { type PlannedInvoice, plannedInvoiceByKey } from "../../domain/billing/items.js";
import {
  addCharges,
  type ChargedLine,
  chargedLineOf,
  chargesByProduct,
  type LateDifference,
  lateDifferences,
  lateLineName,
  type ProductCharge,
} from "../../domain/billing/late-usage.js";
import { chargeLines } from "../../domain/billing/pipeline.js";
import { microsOf, quantityMicrosOf } from "../../presenters/money.js";
import type { Repositories } from "../../repositories/index.js";
import type { StoredInvoice } from "../../repositories/invoices.js";
import { invoiceBasis } from "./invoice-basis.js";

/** The most invoices of a contract one late-usage look reads (finalized within the window, and drafts): each. */
const MAX_ADJUSTABLE = 100;

/** Where a LATE_USAGE line goes: the invoice being priced, at the run's `at`. */
export interface LateUsageTarget {
  invoiceId: string;
  at: Date;
  paymentTerms: PaymentTerms;
}

type Line = Invoice["lineItems"][number];

/** A stored line's charge before tax and credits (the API's decimals back to micro-units). */
const chargedOf = (line: Line): ChargedLine => ({
  name: line.name,
  kind: line.kind,
  ...(line.catalogProductId !== undefined && { catalogProductId: line.catalogProductId }),
  ...(line.quantity !== undefined && { quantityMicros: BigInt(quantityMicrosOf(line.quantity)) }),
  chargedMicros:
    microsOf(line.revenueBreakdown.subtotal) +
    microsOf(line.revenueBreakdown.overage) -
    microsOf(line.revenueBreakdown.discount),
  ...(line.taxes.length > 0 && { taxRateCodes: line.taxes.map((tax) => tax.code) }),
});

/** What the adjustments made since of `originalId` charged (credits are negative), per product adjusted. */
function adjustedBefore(others: StoredInvoice[], originalId: string): Map<string, ProductCharge> {
  const lines = others.flatMap(({ invoice }) =>
    invoice.lineItems.filter((line) => line.kind === "LATE_USAGE" && line.adjusts?.invoiceId === originalId),
  );
  return chargesByProduct(
    lines.map((line) => ({
      ...chargedOf(line),
      catalogProductId: line.adjusts?.product ?? line.name,
      quantityMicros: BigInt(quantityMicrosOf(line.adjusts?.quantity ?? 0)),
    })),
  );
}

/** The unit a product's adjustment counts: its meter (the product's only one), else "units". */
function unitOf(planned: PlannedInvoice, product: string): string {
  const charge = planned.charges.find(({ item }) => (item.catalogProductId ?? item.name) === product);
  return charge?.item.meters.length === 1 ? (charge.item.meters[0] ?? "units") : "units";
}

/** The LATE_USAGE line of one positive difference. */
function lateLine(original: Invoice, planned: PlannedInvoice, difference: LateDifference): PricedLine {
  const { product, amountMicros, quantityMicros, taxRateCodes } = difference;
  const cycleStart = new Date(original.billingCycle.startTime);
  const number = original.number ?? null;
  return {
    name: lateLineName({ number, id: original.id, cycleStart }, unitOf(planned, product), quantityMicros),
    kind: "LATE_USAGE",
    ...(quantityMicros > 0n && { quantityMicros }),
    subtotalMicros: amountMicros,
    overageMicros: 0,
    ...(taxRateCodes && { taxRateCodes }),
    adjusts: { invoiceId: original.id, number, product, quantityMicros },
  };
}

/**
 * NEXT_INVOICE (issue 45): the LATE_USAGE lines of the invoice `target` of a contract. Each of the contract's earlier
 * invoices finalized within the account's window is priced again on its own terms from the usage stored now (the
 * whole cycle: tiers), and what it and the adjustments made of it since (on its other invoices, drafts included, not
 * voided) charged is taken off; a positive difference per product is a line. Nothing is written here: the line is
 * stored with the invoice that carries it, in one insert, so an adjustment exists once or not at all, and the next
 * look counts it. A negative difference is left for a credit note (not made yet: docs/decisions.md).
 */
export async function lateUsageLines(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  planned: PlannedInvoice,
  target: LateUsageTarget,
): Promise<PricedLine[]> {
  const lateUsage = (await repositories.accounts.get(accountId))?.lateUsage ?? DEFAULT_LATE_USAGE;
  if (lateUsage.policy !== "NEXT_INVOICE") return [];
  const since = new Date(target.at.getTime() - lateUsage.windowDays * DAY_MS);
  const invoices = await repositories.invoices.adjustable(accountId, contract.id, since, MAX_ADJUSTABLE);
  const others = invoices.filter(({ invoice }) => invoice.id !== target.invoiceId);
  const lines: PricedLine[] = [];
  for (const { invoice: original, cycleKey, life } of others) {
    if (life.status !== "FINALIZED" || new Date(original.billingCycle.endTime) > planned.start) continue;
    const originalCycle = plannedInvoiceByKey(contract, cycleKey, new Date(original.billingCycle.startTime));
    if (!originalCycle) continue;
    const issuedAt = original.finalizedAt ? new Date(original.finalizedAt) : target.at;
    const basis = await invoiceBasis(repositories, accountId, contract, originalCycle, {
      paymentTerms: target.paymentTerms,
      issuedAt,
    });
    const repriced = chargesByProduct(chargeLines(basis).map(chargedLineOf));
    const invoiced = chargesByProduct(original.lineItems.filter((line) => line.kind !== "LATE_USAGE").map(chargedOf));
    const differences = lateDifferences(repriced, addCharges(invoiced, adjustedBefore(others, original.id)));
    for (const difference of differences)
      if (difference.amountMicros > 0) lines.push(lateLine(original, originalCycle, difference));
  }
  return lines;
}
