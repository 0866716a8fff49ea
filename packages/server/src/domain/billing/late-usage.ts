import { roundToMinorUnit } from "../money/currency.js";
import { addMicros, asMicros, type Micros, subMicros, ZERO_MICROS } from "../money/micros.js";
import type { UsageWindow } from "../usage/reads.js";
import { lineKindOf } from "./charge-models/index.js";
import type { ContractInMicros } from "./contract.js";
import { DAY_MS } from "./cycles.js";
import { type PricedLine, usageWindows } from "./invoice.js";
import { type BillableItem, billableItems, type PlannedInvoice } from "./items.js";

/**
 * Late usage (issue 45): usage stored after the invoice of its day was finalized. The original cycle is priced again
 * as a whole on its own terms (tiers make a late unit's price depend on the units before it), and the difference with
 * what it and its earlier adjustments charged is the adjustment. Pure; the reads are services/billing/late-usage.ts.
 */

/** What one product of one invoice charged: before tax and credits, after discounts (micro-units), and its units. */
export interface ProductCharge {
  /** The product's catalogProductId, else the line's name (a contract-level line names no product). */
  product: string;
  name: string;
  chargedMicros: Micros;
  quantityMicros: bigint;
  taxRateCodes?: readonly string[];
}

/** A line's charge before tax and credits: subtotal + overage − discount (a MAXIMUM line's is negative). */
export interface ChargedLine {
  name: string;
  catalogProductId?: string;
  kind: string;
  quantityMicros?: bigint;
  chargedMicros: Micros;
  taxRateCodes?: readonly string[];
}

/** Only usage lines count units (a FLAT line's quantity is not usage); every line counts money. */
const USAGE_KINDS = new Set(["USAGE", "PRODUCT_GROUP", "COMMITMENT", "LATE_USAGE"]);

/** An invoice's lines summed per product, in the order each product first appears. */
export function chargesByProduct(lines: readonly ChargedLine[]): Map<string, ProductCharge> {
  const byProduct = new Map<string, ProductCharge>();
  for (const line of lines) {
    const product = line.catalogProductId ?? line.name;
    const units = USAGE_KINDS.has(line.kind) ? (line.quantityMicros ?? 0n) : 0n;
    const seen = byProduct.get(product);
    if (seen) {
      seen.chargedMicros = addMicros(seen.chargedMicros, line.chargedMicros);
      seen.quantityMicros += units;
    } else {
      byProduct.set(product, {
        product,
        name: line.name,
        chargedMicros: line.chargedMicros,
        quantityMicros: units,
        ...(line.taxRateCodes && { taxRateCodes: line.taxRateCodes }),
      });
    }
  }
  return byProduct;
}

/** One product's adjustment of one original invoice: positive is billed, negative credited. */
export interface LateDifference {
  product: string;
  name: string;
  amountMicros: Micros;
  quantityMicros: bigint;
  taxRateCodes?: readonly string[];
}

/**
 * Per product: the cycle as priced now − (what its invoice charged + what earlier adjustments charged − what earlier
 * corrections credited); products with no difference are left out. Example (GRADUATED 0.01 for the first 1,000, then
 * 0.005): invoiced 800 = 8.00; priced again at 1,300 = 10.00 + 1.50 = 11.50 → +3.50 for +500 units. A second look at
 * 1,000 units after that: 10.00 − (8.00 + 3.50) = −1.50 for −300 units.
 */
export function lateDifferences(
  repriced: Map<string, ProductCharge>,
  alreadyCharged: Map<string, ProductCharge>,
): LateDifference[] {
  const products = new Set([...repriced.keys(), ...alreadyCharged.keys()]);
  const differences: LateDifference[] = [];
  for (const product of products) {
    const now = repriced.get(product);
    const before = alreadyCharged.get(product);
    const amountMicros = subMicros(now?.chargedMicros ?? ZERO_MICROS, before?.chargedMicros ?? ZERO_MICROS);
    const quantityMicros = (now?.quantityMicros ?? 0n) - (before?.quantityMicros ?? 0n);
    if (amountMicros === 0 && quantityMicros === 0n) continue;
    const taxRateCodes = now?.taxRateCodes ?? before?.taxRateCodes;
    differences.push({
      product,
      name: (now ?? before)?.name ?? product,
      amountMicros,
      quantityMicros,
      ...(taxRateCodes && { taxRateCodes }),
    });
  }
  return differences;
}

/** Sums per product several invoices' charges (an original and the adjustments made of it since). */
export function addCharges(...charges: Map<string, ProductCharge>[]): Map<string, ProductCharge> {
  const sum = new Map<string, ProductCharge>();
  for (const byProduct of charges)
    for (const [product, charge] of byProduct) {
      const seen = sum.get(product);
      if (seen)
        sum.set(product, {
          ...seen,
          chargedMicros: addMicros(seen.chargedMicros, charge.chargedMicros),
          quantityMicros: seen.quantityMicros + charge.quantityMicros,
        });
      else sum.set(product, { ...charge });
    }
  return sum;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Units as a document shows them: "+1,200", "−300", "+0.5". */
export function signedUnits(quantityMicros: bigint): string {
  const negative = quantityMicros < 0n;
  const micros = negative ? -quantityMicros : quantityMicros;
  const whole = (micros / 1_000_000n).toLocaleString("en-US");
  const fraction = (micros % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${negative ? "−" : "+"}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** "Late usage, INV-000123 (Mar 2025): +1,200 tokens" (a draft original, not numbered yet, shows its id). */
export function lateLineName(
  original: { number: string | null; id: string; cycleStart: Date },
  unit: string,
  q: bigint,
) {
  const month = `${MONTHS[original.cycleStart.getUTCMonth()]} ${original.cycleStart.getUTCFullYear()}`;
  return `Late usage, ${original.number ?? original.id} (${month}): ${signedUnits(q)} ${unit}`;
}

/** Whether an invoice finalized at `finalizedAt` is still adjusted by a run at `at` (the window is counted in days). */
export const withinWindow = (finalizedAt: Date, at: Date, windowDays: number) =>
  at.getTime() - finalizedAt.getTime() <= windowDays * DAY_MS;

/** A priced line's charge before tax and credits, for chargesByProduct. */
export const chargedLineOf = (line: PricedLine & { discountMicros: Micros }): ChargedLine => ({
  name: line.name,
  kind: line.kind,
  ...(line.catalogProductId !== undefined && { catalogProductId: line.catalogProductId }),
  ...(line.quantityMicros !== undefined && { quantityMicros: line.quantityMicros }),
  chargedMicros: asMicros(line.subtotalMicros + line.overageMicros - line.discountMicros),
  ...(line.taxRateCodes && { taxRateCodes: line.taxRateCodes }),
});

/** Whether an item's charge depends on usage: a usage price, or a commitment counting units (FLAT, ONE_TIME and
 * PER_SEAT read none). */
const pricedByUsage = (item: BillableItem) =>
  item.commitment !== undefined || item.prices.some(({ pricing }) => lineKindOf(pricing.type) === "USAGE");

/**
 * Whether any version of a contract's terms prices usage: a contract that never did has no late usage, and its
 * invoices look for none (no read at all).
 */
export const pricesUsage = (contract: ContractInMicros): boolean =>
  [contract, ...(contract.earlierTerms ?? []).map((terms) => ({ ...contract, ...terms }))].some((version) =>
    billableItems(version).some(pricedByUsage),
  );

/** The usage windows of a cycle whose charges usage prices: what late usage of the cycle can change. */
export const lateUsageWindows = (contract: ContractInMicros, cycle: PlannedInvoice): UsageWindow[] =>
  usageWindows(contract, cycle).flatMap((windows, index) => {
    const charge = cycle.charges[index];
    return charge && pricedByUsage(charge.item) ? windows : [];
  });

/**
 * How long before an invoice's lines became final its usage may have been read, or usage stamped `storedAt` may have
 * become readable (a partial's insert; a batch stops writing 5 minutes after it starts, and its repair stamps anew):
 * usage stored since then may be missing from it, so it counts as late. Generous: a needless repricing is all it
 * costs.
 */
export const READ_BEFORE_FINAL_MS = 10 * 60_000;

/** An invoice as the late-usage look sees it: when its lines became final (else when stored), and its lines. */
export interface FinalLines {
  id: string;
  finalAt: Date;
  createdAt: Date;
  lines: readonly { kind: string; adjusts?: { invoiceId: string } | undefined }[];
}

/**
 * Since when usage stored counts as late for `original` (storedSince): READ_BEFORE_FINAL_MS before the last time its
 * whole cycle was priced and the result kept (the earlier of stored and final, to be generous): its own lines
 * becoming final, or a later FINALIZED invoice of the contract (a carrier, an adjustment invoice) whose LATE_USAGE
 * line adjusts it (that look priced the whole cycle from the usage stored then, and its line holds the
 * difference). Usage stored before that is in what
 * the original and its adjustments add up to already, so a cycle adjusted once is not priced again until something
 * newer is stored. A look that found no difference, or only a credit (USAGE_CORRECTION notes are not read here),
 * keeps nothing: the next look prices the cycle again, and finds the same. Example: March final Apr 1, late tokens
 * stored Apr 3, April's invoice with March's +3.50 final May 1 → since May 1 − 10 min: June 1's look reads March's
 * days (light read), finds nothing stored since, and does not price March again.
 */
export function lateSince(original: FinalLines, later: readonly FinalLines[]): Date {
  const keptAt = (invoice: FinalLines) => Math.min(invoice.finalAt.getTime(), invoice.createdAt.getTime());
  const carriers = later.filter(
    (invoice) =>
      invoice.id !== original.id &&
      invoice.lines.some((line) => line.kind === "LATE_USAGE" && line.adjusts?.invoiceId === original.id),
  );
  const last = Math.max(keptAt(original), ...carriers.map(keptAt));
  return new Date(last - READ_BEFORE_FINAL_MS);
}

/** When usage was stored for a day: a rollup's `storedAt` (absent: unknown) or a measurement's `updatedAt`. */
export interface StoredDay {
  day: string;
  storedAt?: Date | undefined;
}

/**
 * Whether usage of the cycle's windows (their days) was stored at or after `since` (or at an unknown time): the
 * cycle must be priced again. No such day: what it was invoiced for is what it would be priced at now, and nothing
 * is read. Example: March invoiced (lines final Apr 1 00:05); a rollup of Mar 20 stored Apr 3 → priced again; only
 * rollups of March stored by Mar 31 → not.
 */
export const storedSince = (windows: readonly UsageWindow[], stored: readonly StoredDay[], since: Date): boolean =>
  stored.some(
    ({ day, storedAt }) =>
      (!storedAt || storedAt >= since) &&
      windows.some((window) => window.fromDay <= day && day < window.toDayExclusive),
  );

/**
 * The tax a USAGE_CORRECTION credit note gives back with its amount: the original's lines of the product added tax
 * on what they charged, so the credit takes the same share of it: credit × added tax ÷ charged, rounded half up to
 * the minor unit (inclusive rates are in the amount already). Example: 10.00 charged with 2.00 VAT added (20 %), a
 * 1.50 correction → 0.30 tax, a credit note of 1.80.
 */
export function correctionTaxMicros(
  creditMicros: Micros,
  original: { chargedMicros: Micros; addedTaxMicros: Micros },
  currency: string,
): Micros {
  if (creditMicros <= 0 || original.chargedMicros <= 0 || original.addedTaxMicros <= 0) return ZERO_MICROS;
  const numerator = BigInt(creditMicros) * BigInt(original.addedTaxMicros);
  return roundToMinorUnit(numerator, BigInt(original.chargedMicros), currency);
}
