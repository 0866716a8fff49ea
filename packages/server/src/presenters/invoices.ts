import { fromMicros, type InvoiceDraft, type RevenueBreakdown, unitsOfMicros } from "@billing/shared";
import type { TierCharge } from "../domain/billing/charge-models/index.js";
import type { BreakdownInMicros, InvoiceDraftInMicros, LineItemInMicros } from "../domain/billing/pipeline.js";
import { type LineTaxInMicros, taxSummaryOf } from "../domain/billing/tax.js";

// The invoice's edge: an invoice as the engine composes it (micro-units) as the API answers it (decimals).

export const presentBreakdown = (breakdown: BreakdownInMicros): RevenueBreakdown => ({
  subtotal: fromMicros(breakdown.subtotal),
  overage: fromMicros(breakdown.overage),
  discount: fromMicros(breakdown.discount),
  creditsUsed: fromMicros(breakdown.creditsUsed),
  tax: fromMicros(breakdown.tax),
  taxInclusive: fromMicros(breakdown.taxInclusive),
  total: fromMicros(breakdown.total),
});

const presentTier = ({ upToMicros, quantityMicros, unitPriceMicros, flatPriceMicros, amountMicros }: TierCharge) => ({
  upTo: upToMicros === null ? null : fromMicros(upToMicros),
  quantity: unitsOfMicros(quantityMicros),
  unitPrice: fromMicros(unitPriceMicros),
  flatPrice: fromMicros(flatPriceMicros),
  amount: fromMicros(amountMicros),
});

export const presentLineTax = ({ taxableMicros, amountMicros, ...rate }: LineTaxInMicros) => ({
  ...rate,
  taxableAmount: fromMicros(taxableMicros),
  amount: fromMicros(amountMicros),
});

const presentLineItem = (line: LineItemInMicros): InvoiceDraft["lineItems"][number] => {
  const {
    name,
    kind,
    catalogProductId,
    quantityMicros,
    unitPriceMicros,
    tiers,
    packages,
    revenueBreakdown,
    taxes,
    version,
  } = line;
  return {
    name,
    kind,
    ...(catalogProductId !== undefined && { catalogProductId }),
    ...(quantityMicros !== undefined && { quantity: unitsOfMicros(quantityMicros) }),
    ...(unitPriceMicros !== undefined && { unitPrice: fromMicros(unitPriceMicros) }),
    ...(tiers && { tiers: tiers.map(presentTier) }),
    ...(packages && {
      packages: {
        count: Number(packages.count),
        size: fromMicros(packages.sizeMicros),
        price: fromMicros(packages.priceMicros),
      },
    }),
    ...(version !== undefined && { version }),
    revenueBreakdown: presentBreakdown(revenueBreakdown),
    taxes: taxes.map(presentLineTax),
  };
};

/** A composed invoice as the API answers it (a preview), and as the money rule checks it before it is stored. */
export const presentInvoiceDraft = ({
  revenueBreakdown,
  amountMicros,
  lineItems,
  ...fields
}: InvoiceDraftInMicros): InvoiceDraft => ({
  ...fields,
  revenueBreakdown: presentBreakdown(revenueBreakdown),
  amount: fromMicros(amountMicros),
  lineItems: lineItems.map(presentLineItem),
  taxSummary: taxSummaryOf(lineItems).map(presentLineTax),
});

/**
 * A simulation's totals from the invoices' amounts in micro-units (each whole cents, so every sum is exact): what the
 * simulated terms charge, what the finalized invoices charged, and the difference (negative: the terms cost less).
 */
export function simulationTotals(simulatedMicros: number[], actualMicros: number[]) {
  const sum = (amounts: number[]) => amounts.reduce((total, amount) => total + amount, 0);
  const simulated = sum(simulatedMicros);
  const actual = sum(actualMicros);
  return {
    simulatedTotal: fromMicros(simulated),
    actualTotal: fromMicros(actual),
    difference: fromMicros(simulated - actual),
  };
}
