import type { Scheduling } from "@billing/shared";
import { termsWindows, withinWindow } from "../contracts/amendments.js";
import { type Micros, sumMicros, ZERO_MICROS } from "../money/micros.js";
import type { ChargePricing } from "./charge-models/index.js";
import type { CommitmentInMicros, ContractInMicros, DiscountInMicros, ProductInMicros } from "./contract.js";
import { type CoveredDays, type Cycle, contractDays, cyclesOf, defaultScheduling } from "./cycles.js";
import { mostSpecificCodes } from "./tax.js";

/** What a contract bills for, normalized: a top-level product, or a product group billed as one line. */
export interface BillableItem {
  name: string;
  kind: "product" | "group";
  catalogProductId?: string;
  scheduling: Scheduling;
  /** Meters whose measurements are this item's usage (catalogProductId of the product, or of the group's products). */
  meters: string[];
  /** One-time prices, billed in the item's first cycle (a group's add to the group's line). */
  oneTimeMicros: Micros;
  baseAmountMicros: Micros;
  /** `overagePriceMicros` is set under the CHARGE strategy: each unit beyond the committed ones costs it. */
  commitment?: { unitsMicros: number; priceMicros: Micros; overagePriceMicros?: Micros };
  /** Prices other than ONE_TIME, each on a line of its own every cycle (a group's products' too). */
  prices: PricedProduct[];
  /** Paid at the start of each cycle. */
  prepaid: boolean;
  /** The tax rates the product or group names (an empty list names none). */
  taxRateCodes?: readonly string[];
  /** A product's minimum and maximum a cycle (prorated by days), its own discounts (adjustments.ts, discounts.ts). */
  minimumMicros?: Micros;
  maximumMicros?: Micros;
  discounts?: DiscountInMicros[];
}

/** A product's price charged on its own line: FLAT every cycle, or a usage price on its meter's usage. */
export interface PricedProduct {
  name: string;
  catalogProductId?: string;
  pricing: ChargePricing;
  /** The product's tax rates, else its group's. */
  taxRateCodes?: readonly string[];
  /** PER_SEAT: the seats the product starts with (the contract's seat changes change them). */
  seats?: number;
}

const commitmentOf = ({ unitsMicros, priceMicros, overageStrategy, overagePriceMicros }: CommitmentInMicros) => ({
  unitsMicros,
  priceMicros,
  ...(overageStrategy === "CHARGE" && overagePriceMicros !== undefined && { overagePriceMicros }),
});

const oneTimeMicrosOf = (product: ProductInMicros): Micros =>
  product.pricing?.type === "ONE_TIME" ? product.pricing.priceMicros : ZERO_MICROS;

const pricesOf = (products: ProductInMicros[], groupTaxRateCodes?: readonly string[]): PricedProduct[] =>
  products.flatMap(({ displayName, catalogProductId, pricing, taxRateCodes, seats }) => {
    if (!pricing || pricing.type === "ONE_TIME") return [];
    const codes = mostSpecificCodes(taxRateCodes, groupTaxRateCodes);
    return [
      {
        name: displayName,
        ...(catalogProductId && { catalogProductId }),
        pricing,
        ...(codes && { taxRateCodes: codes }),
        ...(seats !== undefined && { seats }),
      },
    ];
  });

/** The tax rates an item names, when it names any. */
const taxRateCodesOf = (codes: readonly string[] | undefined) => {
  const named = mostSpecificCodes(codes);
  return named ? { taxRateCodes: named } : {};
};

/**
 * A product's cycles follow its `scheduling`, else its commitment's, else monthly on the contract's start day.
 * A group's follow its commitment's, else its first product's. A group's products are billed through the
 * group line: their one-time prices add to it; their own commitments are not used (the group's is shared); their
 * other prices (FLAT, usage) make lines of their own on the group's invoices.
 */
export function billableItems(
  contract: ContractInMicros,
  covered = contractDays(contract.startDate, contract.endDate),
): BillableItem[] {
  const fallback = defaultScheduling(covered);
  const scheduleOf = (product: ProductInMicros | undefined) => product?.scheduling ?? product?.commitment?.scheduling;
  const products = (contract.products ?? []).map<BillableItem>((product) => ({
    name: product.displayName,
    kind: "product",
    ...(product.catalogProductId && { catalogProductId: product.catalogProductId }),
    scheduling: scheduleOf(product) ?? fallback,
    meters: product.catalogProductId ? [product.catalogProductId] : [],
    oneTimeMicros: oneTimeMicrosOf(product),
    baseAmountMicros: ZERO_MICROS,
    ...(product.commitment && { commitment: commitmentOf(product.commitment) }),
    prices: pricesOf([product]),
    prepaid: product.paymentTerm === "Prepayment",
    ...taxRateCodesOf(product.taxRateCodes),
    ...(product.minimumMicros !== undefined && { minimumMicros: product.minimumMicros }),
    ...(product.maximumMicros !== undefined && { maximumMicros: product.maximumMicros }),
    ...(product.discounts && { discounts: product.discounts }),
  }));
  const groups = (contract.productGroups ?? []).map<BillableItem>((group) => ({
    name: group.displayName,
    kind: "group",
    scheduling: group.commitment?.scheduling ?? scheduleOf(group.products[0]) ?? fallback,
    meters: group.products.flatMap((product) => (product.catalogProductId ? [product.catalogProductId] : [])),
    oneTimeMicros: sumMicros(group.products.map(oneTimeMicrosOf)),
    baseAmountMicros: group.baseAmountMicros ?? ZERO_MICROS,
    ...(group.commitment && { commitment: commitmentOf(group.commitment) }),
    prices: pricesOf(group.products, group.taxRateCodes),
    prepaid: group.products.some((product) => product.paymentTerm === "Prepayment"),
    ...taxRateCodesOf(group.taxRateCodes),
  }));
  return [...products, ...groups];
}

/**
 * One item in one of its cycles; `first` marks the item's first cycle (one-time prices are billed there). `version`
 * is the version of the terms the item belongs to, and `days` the days of the contract that version bills: a cycle
 * an amendment splits has a charge of each version, each for its days.
 */
export interface CycleCharge {
  item: BillableItem;
  cycle: Cycle;
  first: boolean;
  /** The cycle's number among the item's cycles from the contract's start, 0 for the first (discounts' `cycles`). */
  number: number;
  version: number;
  days: CoveredDays;
}

/**
 * One invoice of a contract: the charges of the items whose cycles have the same start, the same end and the
 * same timing (in advance or in arrears). Items of different cycle lengths or timings never share an invoice.
 */
export interface PlannedInvoice {
  /** The same for the same cycle in every run, and unique within the contract: it keys the invoice. */
  key: string;
  start: Date;
  /** The items' cycle end, but never past the contract's covered days. */
  end: Date;
  prepaid: boolean;
  charges: CycleCharge[];
  /** When it is due: at its start (or the contract's first day) if prepaid, else at its end. */
  dueAt: Date;
  /** When runs make it: when due, plus the grace period for an arrears invoice (late events still count). */
  readyAt: Date;
}

/**
 * The order billing runs make invoices in: by when they become ready (so a run that stops part-way leaves only
 * invoices ready at or after the one it stopped at), then by when they are due, then by their cycle.
 */
export const byReadyTime = (a: PlannedInvoice, b: PlannedInvoice) =>
  a.readyAt.getTime() - b.readyAt.getTime() ||
  a.dueAt.getTime() - b.dueAt.getTime() ||
  a.start.getTime() - b.start.getTime() ||
  a.key.localeCompare(b.key);

/**
 * The order one billing run makes the invoices of several contracts in: ready order across them, ties broken by
 * contract. Credits pay each invoice as it is made, so they pay a customer's invoices in the order they were issued.
 */
export const byRunOrder = (
  a: { contractId: string; cycle: PlannedInvoice },
  b: { contractId: string; cycle: PlannedInvoice },
) => byReadyTime(a.cycle, b.cycle) || a.contractId.localeCompare(b.contractId);

/** The covered days of a contract that is billed: an `Expired` contract without an end is billed for nothing. */
function billedDays(contract: ContractInMicros): CoveredDays | undefined {
  const covered = contractDays(contract.startDate, contract.endDate);
  return contract.status === "Expired" && !covered.to ? undefined : covered;
}

const identityOf = (item: BillableItem) => `${item.kind}/${item.catalogProductId ?? ""}/${item.name}`;

/**
 * Each item of each version of the terms with its cycles that start at or before `startsUpTo` and meet the days the
 * version bills (cycles keep the contract's schedule whatever the version), and the start of its next such cycle.
 * An item a version carries over from the one before (same kind, name and catalogProductId) is not in its first
 * cycle again: its one-time prices were billed.
 */
function itemCycles(contract: ContractInMicros, covered: CoveredDays, startsUpTo: Date) {
  let before = new Set<string>();
  return termsWindows(contract).flatMap(({ version, terms, days: window }) => {
    const days = withinWindow(covered, window);
    const items = billableItems(
      { ...contract, products: terms.products ?? [], productGroups: terms.productGroups ?? [] },
      covered,
    );
    const carried = before;
    before = new Set(items.map(identityOf));
    if (days.to && days.to <= days.from) return [];
    return items.map((item) => {
      const cycles: (Cycle & { number: number })[] = [];
      let next: Date | undefined;
      let number = -1;
      for (const cycle of cyclesOf(item.scheduling, covered)) {
        number += 1;
        if (days.to && cycle.start >= days.to) break;
        if (cycle.end <= days.from) continue;
        if (cycle.start > startsUpTo) {
          next = cycle.start;
          break;
        }
        cycles.push({ ...cycle, number });
      }
      return { item, cycles, next, version, days, carriedOver: carried.has(identityOf(item)) };
    });
  });
}

function groupIntoInvoices(covered: CoveredDays, items: ReturnType<typeof itemCycles>, graceMs = 0): PlannedInvoice[] {
  const byKey = new Map<string, PlannedInvoice>();
  for (const { item, cycles, version, days, carriedOver } of items) {
    cycles.forEach(({ number, ...cycle }, index) => {
      const end = covered.to && covered.to < cycle.end ? covered.to : cycle.end;
      const key = `${cycle.start.toISOString()}/${end.toISOString()}/${item.prepaid ? "advance" : "arrears"}`;
      const dueAt = item.prepaid ? new Date(Math.max(cycle.start.getTime(), covered.from.getTime())) : end;
      const readyAt = item.prepaid ? dueAt : new Date(dueAt.getTime() + graceMs);
      const invoice = byKey.get(key) ?? {
        key,
        start: cycle.start,
        end,
        prepaid: item.prepaid,
        charges: [],
        dueAt,
        readyAt,
      };
      invoice.charges.push({ item, cycle, first: index === 0 && !carriedOver, number, version, days });
      byKey.set(key, invoice);
    });
  }
  return [...byKey.values()].sort(byReadyTime);
}

/** The contract's invoices whose items' cycles start at or before `startsUpTo`, in the order they fall due. */
export function plannedInvoices(contract: ContractInMicros, startsUpTo: Date): PlannedInvoice[] {
  const covered = billedDays(contract);
  return covered ? groupIntoInvoices(covered, itemCycles(contract, covered, startsUpTo)) : [];
}

/**
 * What a billing run as of `at` has to do for the contract: the invoices ready by then, in `byReadyTime` order,
 * and the earliest moment after `at` at which another may fall due (undefined when none ever will). That moment
 * is a lower bound: an arrears cycle starting after `at` is counted from its start plus the grace.
 */
export function billingTimeline(
  contract: ContractInMicros,
  at: Date,
  graceMs = 0,
): { due: PlannedInvoice[]; nextDueAt: Date | undefined } {
  const covered = billedDays(contract);
  if (!covered) return { due: [], nextDueAt: undefined };
  const items = itemCycles(contract, covered, at);
  const invoices = groupIntoInvoices(covered, items, graceMs);
  const later = [
    ...invoices.filter((invoice) => invoice.readyAt > at).map((invoice) => invoice.readyAt),
    // An item's next cycle starts after `at`: its invoice is ready at that start when prepaid, else after its end
    // and the grace — so no earlier than the start plus the grace. A bound as tight as that keeps a month-end's
    // schedules at the moment their invoices are ready: a run's horizon (claims.ts) holds back invoices ready after a
    // due contract it did not read, so schedules an hour early made a whole call of 100 contracts bill none.
    ...items.flatMap(({ item, next }) => (next ? [item.prepaid ? next : new Date(next.getTime() + graceMs)] : [])),
  ];
  const nextDueAt = later.length > 0 ? new Date(Math.min(...later.map((date) => date.getTime()))) : undefined;
  return { due: invoices.filter((invoice) => invoice.readyAt <= at), nextDueAt };
}

/** The contract's planned invoice of a stored key (cycle starting at `cycleStart`), if the contract still has it. */
export const plannedInvoiceByKey = (contract: ContractInMicros, key: string, cycleStart: Date) =>
  plannedInvoices(contract, cycleStart).find((invoice) => invoice.key === key);

/** plannedInvoiceByKey's question, of one contract: the planned invoice of a stored key and cycle start. */
export type CycleLookup = (key: string, cycleStart: Date) => PlannedInvoice | undefined;

/**
 * plannedInvoiceByKey for every cycle of one contract starting by `upTo`, planned once (on the first question): a run
 * asks it for each original its late usage may adjust, for each invoice of a backlog, and planning from the contract's
 * start each time made that quadratic in the backlog's cycles. The same answers: planning further ahead adds cycles,
 * and changes none that start earlier (each item's cycles are numbered from its first). A later cycle is planned on
 * its own.
 */
export function cycleLookup(contract: ContractInMicros, upTo: Date): CycleLookup {
  let byKey: Map<string, PlannedInvoice> | undefined;
  return (key, cycleStart) => {
    if (cycleStart > upTo) return plannedInvoiceByKey(contract, key, cycleStart);
    byKey ??= new Map(plannedInvoices(contract, upTo).map((invoice) => [invoice.key, invoice]));
    const planned = byKey.get(key);
    return planned && planned.start <= cycleStart ? planned : undefined;
  };
}
