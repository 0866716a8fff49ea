import { asMicros, type Micros, ZERO_MICROS } from "../money/micros.js";
import type { PricedLine } from "./invoice.js";
import type { LineItemInMicros } from "./pipeline.js";

/**
 * Threshold (progressive) billing (issue 51; docs/decisions.md, "Threshold billing"): a contract's
 * `billingThresholdsMicros`, increasing. While a cycle runs, what its lines accrued before tax is compared with them;
 * the cycle's n-th threshold invoice bills the cycle priced so far (tiers on the whole cycle, never per slice) less
 * what its threshold invoices 1…n−1 billed, and its final invoice takes off what all of them billed. Both are the
 * same stage: THRESHOLD_BILLED lines, one per earlier threshold invoice and product.
 */

/** Threshold invoices a cycle may have at most (a voided one may be made again): 10 thresholds, twice. */
export const MAX_THRESHOLD_INVOICES = 20;

/** The key of the cycle's n-th threshold invoice (its invoice's own `cycleKey`: one insert decides it). */
export const thresholdKey = (cycleKey: string, n: number) => `${cycleKey}#threshold-${n}`;

/**
 * What a cycle's invoice accrued of the cycle before tax (after discounts and maximums): its lines but the
 * THRESHOLD_BILLED ones (earlier threshold invoices) and LATE_USAGE ones (earlier cycles).
 */
export const accruedMicros = (lines: readonly LineItemInMicros[]): number =>
  lines
    .filter((line) => line.kind !== "THRESHOLD_BILLED" && line.kind !== "LATE_USAGE")
    .reduce((sum, { revenueBreakdown: { subtotal, overage, discount } }) => sum + subtotal + overage - discount, 0);

/** What the threshold invoices billed in all, before tax: the accrued amount the last of them was made at. */
export const billedMicros = (billed: readonly ThresholdInvoiceBilled[]): number =>
  billed.reduce((sum, invoice) => sum + invoice.lines.reduce((total, line) => total + line.chargedMicros, 0), 0);

/**
 * Whether the cycle takes a new threshold invoice: its accrued amount reaches a threshold that what its threshold
 * invoices billed (the accrued amount of the last, as each bills what accrued less the ones before) had not reached.
 * E.g. thresholds 100.00 and 250.00: accrued 120.00, billed 0 → yes (1 > 0); accrued 270.00, billed 120.00 → yes
 * (2 > 1); accrued 300.00, billed 270.00 → no (2 = 2).
 */
export const crossesNewThreshold = (thresholdsMicros: readonly Micros[], accrued: number, billed: number): boolean =>
  thresholdsReached(thresholdsMicros, accrued) > thresholdsReached(thresholdsMicros, billed);

/** How many of the thresholds `accrued` micro-units reach (a threshold is reached at its amount). */
export const thresholdsReached = (thresholdsMicros: readonly Micros[], accrued: number): number =>
  thresholdsMicros.filter((threshold) => threshold <= accrued).length;

/** A line of an earlier threshold invoice: the product it charged (catalogProductId, else name) and how much. */
export interface BilledLine {
  product: string;
  catalogProductId?: string;
  /** Before tax: subtotal + overage − discount (a THRESHOLD_BILLED line's is negative). */
  chargedMicros: Micros;
  taxRateCodes?: readonly string[];
}

/** An earlier threshold invoice of the cycle (not voided): its number and lines. */
export interface ThresholdInvoiceBilled {
  invoiceId: string;
  number: string | null;
  lines: readonly BilledLine[];
}

/**
 * The THRESHOLD_BILLED lines of an invoice of the cycle: for each earlier threshold invoice and product, what it
 * billed net (its lines of the product, its own THRESHOLD_BILLED ones included), taken off, with the product's tax
 * rates (so the tax it added is taken off too). A product it billed nothing of net makes no line.
 * E.g. threshold invoices of 120.00 then 270.00 − 120.00: the final invoice of 300.00 takes off 120.00 and 150.00.
 */
export function thresholdBilledLines(earlier: readonly ThresholdInvoiceBilled[]): PricedLine[] {
  return earlier.flatMap(({ invoiceId, number, lines }) => {
    const byProduct = new Map<string, BilledLine>();
    for (const line of lines) {
      const known = byProduct.get(line.product);
      byProduct.set(line.product, {
        ...(known ?? line),
        chargedMicros: asMicros((known?.chargedMicros ?? 0) + line.chargedMicros),
      });
    }
    const several = byProduct.size > 1;
    return [...byProduct.values()]
      .filter((billed) => billed.chargedMicros !== 0)
      .map(
        (billed): PricedLine => ({
          name: `Billed on ${number ?? "a draft"} (threshold)${several ? `: ${billed.product}` : ""}`,
          kind: "THRESHOLD_BILLED",
          ...(billed.catalogProductId !== undefined && { catalogProductId: billed.catalogProductId }),
          subtotalMicros: asMicros(-billed.chargedMicros),
          overageMicros: ZERO_MICROS,
          ...(billed.taxRateCodes && { taxRateCodes: billed.taxRateCodes }),
          adjusts: { invoiceId, number, product: billed.product, quantityMicros: 0n },
        }),
      );
  });
}
