import { toMicros, type Contract, type Product, type Scheduling } from "@billing/shared";
import { cyclesOf, defaultScheduling, type Cycle } from "./cycles.js";

/** What a contract bills for, normalized: a top-level product, or a product group billed as one line. */
export interface BillableItem {
  name: string;
  kind: "product" | "group";
  catalogProductId?: string;
  scheduling: Scheduling;
  /** Meters whose measurements are this item's usage (catalogProductId of the product, or of the group's products). */
  meters: string[];
  oneTimeMicros: number;
  baseAmountMicros: number;
  commitment?: { unitsMicros: number; priceMicros: number };
  /** Paid at the start of each cycle. */
  prepaid: boolean;
}

const commitmentOf = (commitment: { units: number; price: number } | undefined) =>
  commitment && { unitsMicros: toMicros(commitment.units), priceMicros: toMicros(commitment.price) };

/**
 * A product's cycles follow its `scheduling`, else its commitment's, else monthly on the contract's start day.
 * A group's follow its commitment's, else its first product's. A group's products are billed through the
 * group line: their one-time prices add to it; their own commitments are not used (the group's is shared).
 */
export function billableItems(contract: Contract): BillableItem[] {
  const fallback = defaultScheduling(new Date(contract.startDate));
  const scheduleOf = (product: Product | undefined) => product?.scheduling ?? product?.commitment?.scheduling;
  const products = (contract.products ?? []).map<BillableItem>((product) => ({
    name: product.displayName,
    kind: "product",
    ...(product.catalogProductId && { catalogProductId: product.catalogProductId }),
    scheduling: scheduleOf(product) ?? fallback,
    meters: product.catalogProductId ? [product.catalogProductId] : [],
    oneTimeMicros: product.pricing ? toMicros(product.pricing.price) : 0,
    baseAmountMicros: 0,
    ...(product.commitment && { commitment: commitmentOf(product.commitment) }),
    prepaid: product.paymentTerm === "Prepayment",
  }));
  const groups = (contract.productGroups ?? []).map<BillableItem>((group) => ({
    name: group.displayName,
    kind: "group",
    scheduling: group.commitment?.scheduling ?? scheduleOf(group.products[0]) ?? fallback,
    meters: group.products.flatMap((product) => (product.catalogProductId ? [product.catalogProductId] : [])),
    oneTimeMicros: group.products.reduce((sum, product) => sum + (product.pricing ? toMicros(product.pricing.price) : 0), 0),
    baseAmountMicros: group.baseAmount ? toMicros(group.baseAmount) : 0,
    ...(group.commitment && { commitment: commitmentOf(group.commitment) }),
    prepaid: group.products.some((product) => product.paymentTerm === "Prepayment"),
  }));
  return [...products, ...groups];
}

/** One item in one of its cycles; `first` marks the item's first cycle (one-time prices are billed there). */
export interface CycleCharge {
  item: BillableItem;
  cycle: Cycle;
  first: boolean;
}

/** The invoice of a contract for the cycles that start at one instant: `start` keys it (one invoice per key). */
export interface InvoiceCycle {
  start: Date;
  /** The latest end among its items' cycles, but never past the contract's end. */
  end: Date;
  charges: CycleCharge[];
  /** When a billing run makes it: at its start if any item is prepaid, else once it has ended. */
  dueAt: Date;
}

/** The contract's invoice cycles that start at or before `asOf`, in order. */
export function invoiceCycles(contract: Contract, asOf: Date): InvoiceCycle[] {
  const contractStart = new Date(contract.startDate);
  const contractEnd = contract.endDate === undefined ? undefined : new Date(contract.endDate);
  const byStart = new Map<number, CycleCharge[]>();
  for (const item of billableItems(contract)) {
    let first = true;
    for (const cycle of cyclesOf(item.scheduling, contractStart, contractEnd)) {
      if (cycle.start > asOf) break;
      const charges = byStart.get(cycle.start.getTime()) ?? [];
      charges.push({ item, cycle, first });
      byStart.set(cycle.start.getTime(), charges);
      first = false;
    }
  }
  return [...byStart.entries()]
    .sort(([a], [b]) => a - b)
    .map(([startMs, charges]) => {
      const start = new Date(startMs);
      const latestEnd = Math.max(...charges.map(({ cycle }) => cycle.end.getTime()));
      const end = new Date(contractEnd ? Math.min(latestEnd, contractEnd.getTime()) : latestEnd);
      const prepaid = charges.some(({ item }) => item.prepaid);
      return { start, end, charges, dueAt: prepaid ? new Date(Math.max(startMs, contractStart.getTime())) : end };
    });
}
