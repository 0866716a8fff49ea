import { DEFAULT_LATE_USAGE, type Invoice } from "@billing/shared";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import { DAY_MS } from "../../domain/billing/cycles.js";
import type { PaymentTerms, PricedLine } from "../../domain/billing/invoice.js";
import { type CycleLookup, type PlannedInvoice, plannedInvoiceByKey } from "../../domain/billing/items.js";
import {
  addCharges,
  type ChargedLine,
  chargedLineOf,
  chargesByProduct,
  correctionTaxMicros,
  type FinalLines,
  type LateDifference,
  lateDifferences,
  lateLineName,
  lateSince,
  lateUsageWindows,
  type ProductCharge,
  pricesUsage,
  storedSince,
} from "../../domain/billing/late-usage.js";
import { chargeLines } from "../../domain/billing/pipeline.js";
import { finalSince, type InvoiceFinality } from "../../domain/invoices/life.js";
import { asMicros, type Micros, sumMicros, ZERO_MICROS } from "../../domain/money/micros.js";
import { type UsageWindow, usageToRead } from "../../domain/usage/reads.js";
import { microsOf, quantityMicrosOf } from "../../presenters/money.js";
import type { Repositories } from "../../repositories/index.js";
import type { StoredInvoice } from "../../repositories/invoices.js";
import { couponsOf } from "../contract-reads.js";
import { usageReader } from "../usage.js";
import { invoiceBasis } from "./invoice-basis.js";
import { correctedBefore } from "./late-corrections.js";

/** The most invoices of a contract one late-usage look reads (finalized within the window, and drafts): each. */
export const MAX_ADJUSTABLE = 100;

/** Where a LATE_USAGE line goes: the invoice being priced, at the run's `at`. */
export interface LateUsageTarget {
  invoiceId: string;
  at: Date;
  paymentTerms: PaymentTerms;
  /** The contract's cycles as the run planned them once (cycleLookup); absent: each original's planned on its own. */
  cycles?: CycleLookup | undefined;
}

type Line = Invoice["lineItems"][number];

/** A stored line's charge before tax and credits (the API's decimals back to micro-units). */
const chargedOf = (line: Line): ChargedLine => ({
  name: line.name,
  kind: line.kind,
  ...(line.catalogProductId !== undefined && { catalogProductId: line.catalogProductId }),
  ...(line.quantity !== undefined && { quantityMicros: BigInt(quantityMicrosOf(line.quantity)) }),
  chargedMicros: asMicros(
    microsOf(line.revenueBreakdown.subtotal) +
      microsOf(line.revenueBreakdown.overage) -
      microsOf(line.revenueBreakdown.discount),
  ),
  ...(line.taxes.length > 0 && { taxRateCodes: line.taxes.map((tax) => tax.code) }),
});

/** What an invoice's own lines of a product charged before tax, and the tax they added on it. */
function taxedCharge(original: Invoice, product: string): { chargedMicros: Micros; addedTaxMicros: Micros } {
  const lines = original.lineItems.filter(
    (line) => line.kind !== "LATE_USAGE" && (line.catalogProductId ?? line.name) === product,
  );
  return {
    chargedMicros: sumMicros(lines.map((line) => chargedOf(line).chargedMicros)),
    addedTaxMicros: sumMicros(
      lines.flatMap((line) => line.taxes.filter((tax) => !tax.inclusive).map((tax) => microsOf(tax.amount))),
    ),
  };
}

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
    overageMicros: ZERO_MICROS,
    ...(taxRateCodes && { taxRateCodes }),
    adjusts: { invoiceId: original.id, number, product, quantityMicros },
  };
}

/** A finalized invoice of the contract in the window, with its planned cycle and what late usage of it can change. */
interface Original {
  stored: StoredInvoice & { finality: InvoiceFinality };
  cycle: PlannedInvoice;
  windows: UsageWindow[];
  /** Usage stored at or after this may be missing from it and its adjustments (lateSince). */
  since: Date;
  /** When its lines became final: the coupons redeemed by then are the ones it applied. */
  finalAt: Date;
}

/** The originals a run at `at` may adjust: FINALIZED, their cycle ended by `planned`'s start, priced by usage. */
function originalsOf(
  contract: ContractInMicros,
  planned: PlannedInvoice,
  finalized: (StoredInvoice & { finality: InvoiceFinality })[],
  target: LateUsageTarget,
): Original[] {
  const finalLines = ({ invoice, finality }: StoredInvoice & { finality: InvoiceFinality }): FinalLines => ({
    id: invoice.id,
    finalAt: finalSince(finality) ?? finality.createdAt,
    createdAt: finality.createdAt,
    lines: invoice.lineItems,
  });
  const cycleOf = target.cycles ?? ((key: string, start: Date) => plannedInvoiceByKey(contract, key, start));
  // What the finalized invoices of the window kept (carriers of LATE_USAGE lines, adjustment invoices): read already.
  const kept = finalized
    .filter(({ life, invoice }) => life.status === "FINALIZED" && invoice.id !== target.invoiceId)
    .map(finalLines);
  return finalized.flatMap((stored) => {
    const { invoice, cycleKey, life } = stored;
    if (invoice.id === target.invoiceId || life.status !== "FINALIZED") return [];
    if (new Date(invoice.billingCycle.endTime) > planned.start) return [];
    const cycle = cycleOf(cycleKey, new Date(invoice.billingCycle.startTime));
    const windows = cycle ? lateUsageWindows(contract, cycle) : [];
    if (!cycle || windows.length === 0) return [];
    const own = finalLines(stored);
    return [{ stored, cycle, windows, since: lateSince(own, kept), finalAt: own.finalAt }];
  });
}

/**
 * The originals with usage stored since their lines became final (storedSince): one light read of the rollups of the
 * contract's meters under the customer's aliases and one of its measurements, over the days of all of them at once.
 * Events not all rolled up yet (an upgrade): every original is priced again.
 */
async function withLateUsage(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  originals: Original[],
): Promise<Original[]> {
  const toRead = usageToRead(originals.flatMap(({ windows }) => windows));
  if (!toRead) return [];
  const { fromDay, toDayExclusive, meters: keys } = toRead;
  const [meters, aliases, measured, rolledUp] = await Promise.all([
    repositories.meters.byKeys(accountId, keys),
    usageReader(repositories, accountId, customerId).aliases(),
    repositories.measurements.updatedAtOfDays(accountId, customerId, keys, fromDay, toDayExclusive),
    repositories.events.everyEventRolledUp(),
  ]);
  if (!rolledUp) return originals;
  const names = [...new Set([...meters.values()].map((meter) => meter.eventName))];
  const rollups = await repositories.usageRollups.storedAtOfDays(accountId, names, aliases, fromDay, toDayExclusive);
  const stored = [...rollups, ...measured.map(({ day, updatedAt }) => ({ day, storedAt: updatedAt }))];
  return originals.filter(({ windows, since }) => storedSince(windows, stored, since));
}

/** What late usage changed of a contract's earlier invoices: lines for the invoice being priced, and corrections. */
export interface LateUsage {
  /** NEXT_INVOICE: the lines go on the invoice priced; ADJUSTMENT_INVOICE: on one invoice per original apart. */
  policy: "NEXT_INVOICE" | "ADJUSTMENT_INVOICE";
  lines: PricedLine[];
  /** The originals the lines adjust, by id: an adjustment invoice takes its billing cycle and number. */
  originals: Map<string, Invoice>;
  /**
   * Negative differences: each a credit note on its original (late-corrections.ts), with the tax the original's
   * lines of the product added on that share (correctionTaxMicros).
   */
  corrections: { original: Invoice; difference: LateDifference; taxMicros: Micros }[];
}

/** The account's policy, and since when invoices are adjusted at `at` (its window); undefined: never (IGNORE). */
async function lateUsageSetting(repositories: Repositories, accountId: string, at: Date) {
  const { policy, windowDays } = (await repositories.accounts.get(accountId))?.lateUsage ?? DEFAULT_LATE_USAGE;
  return policy === "IGNORE" ? undefined : { policy, since: new Date(at.getTime() - windowDays * DAY_MS) };
}

/** Since when invoices are adjusted by an invoice made at `at` (the account's window); undefined: never (IGNORE). */
export async function lateUsageSince(repositories: Repositories, accountId: string, at: Date) {
  return (await lateUsageSetting(repositories, accountId, at))?.since;
}

/**
 * NEXT_INVOICE (issue 45): the LATE_USAGE lines of the invoice `target` of a contract. Each of the contract's earlier
 * invoices finalized within the account's window, and with usage stored since (withLateUsage), is priced again on its
 * own terms from the usage stored now (the whole cycle: tiers; the coupons redeemed by its finalization), and what it
 * and the adjustments made of it since (LATE_USAGE lines of its other invoices, drafts included, not voided;
 * USAGE_CORRECTION credit notes) charged is taken off; a positive difference per product is a line, a negative one a
 * correction. Nothing is written here: the line is stored with the invoice that carries it, in one insert, so an
 * adjustment exists once or not at all, and the next look counts it. A contract whose terms never priced usage
 * reads nothing.
 */
export async function lateUsageOf(
  repositories: Repositories,
  accountId: string,
  contract: ContractInMicros,
  planned: PlannedInvoice,
  target: LateUsageTarget,
): Promise<LateUsage> {
  const none: LateUsage = { policy: "NEXT_INVOICE", lines: [], originals: new Map(), corrections: [] };
  if (!pricesUsage(contract)) return none;
  const setting = await lateUsageSetting(repositories, accountId, target.at);
  if (!setting) return none;
  const { since, policy } = setting;
  const read = (kinds: { finalized: boolean; drafts: boolean }) =>
    repositories.invoices.adjustable(accountId, contract.id, since, MAX_ADJUSTABLE, kinds);
  const finalized = await read({ finalized: true, drafts: false });
  const candidates = originalsOf(contract, planned, finalized, target);
  if (candidates.length === 0) return none;
  const late = await withLateUsage(repositories, accountId, contract.customerId, candidates);
  if (late.length === 0) return none;
  const drafts = await read({ finalized: false, drafts: true });
  const others = [...finalized, ...drafts].filter(({ invoice }) => invoice.id !== target.invoiceId);
  const coupons = await couponsOf(repositories, accountId, contract);
  const result: LateUsage = { policy, lines: [], originals: new Map(), corrections: [] };
  for (const { stored, cycle, finalAt } of late) {
    const original = stored.invoice;
    const issuedAt = original.finalizedAt ? new Date(original.finalizedAt) : target.at;
    const basis = await invoiceBasis(repositories, accountId, contract, cycle, {
      paymentTerms: target.paymentTerms,
      issuedAt,
      coupons: coupons.filter(({ redeemedAt }) => redeemedAt === undefined || new Date(redeemedAt) <= finalAt),
    });
    const repriced = chargesByProduct(chargeLines(basis).map(chargedLineOf));
    const invoiced = chargesByProduct(
      original.lineItems
        .filter((line) => line.kind !== "LATE_USAGE" && line.kind !== "THRESHOLD_BILLED")
        .map(chargedOf),
    );
    const corrected = await correctedBefore(repositories, accountId, original.id, target.invoiceId);
    const before = addCharges(invoiced, adjustedBefore(others, original.id), corrected);
    for (const difference of lateDifferences(repriced, before)) {
      if (difference.amountMicros > 0) {
        result.lines.push(lateLine(original, cycle, difference));
        result.originals.set(original.id, original);
      } else if (difference.amountMicros < 0) {
        const taxMicros = correctionTaxMicros(
          asMicros(-difference.amountMicros),
          taxedCharge(original, difference.product),
          original.currency,
        );
        result.corrections.push({ original, difference, taxMicros });
      }
    }
  }
  return result;
}
