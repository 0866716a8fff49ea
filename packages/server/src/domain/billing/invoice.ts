import { fromMicros, type Contract, type InvoiceDraft, type RevenueBreakdown } from "@billing/shared";
import { fixedChargeMicros, floorToCents, FULL_PERIOD, groupChargeMicros, lineChargeMicros, type Proration } from "./amounts.js";
import { contractDays, coveredPart, dayKey, type Cycle } from "./cycles.js";
import type { CycleCharge, InvoiceCycle } from "./items.js";

/** The days of a charge's cycle that the contract covers: the usage period, and the proration basis. */
export function usagePeriod(contract: Contract, cycle: Cycle) {
  const covered = coveredPart(cycle, contractDays(contract.startDate, contract.endDate));
  return { fromDay: dayKey(covered.from), toDayExclusive: dayKey(covered.to), days: covered.days, periodDays: covered.periodDays };
}

interface Line {
  name: string;
  kind: "ONE_TIME" | "COMMITMENT" | "USAGE" | "PRODUCT_GROUP";
  catalogProductId?: string;
  quantityMicros?: bigint;
  unitPriceMicros?: number;
  subtotalMicros: number;
  /** Charged overage. Zero under the only strategy there is, IGNORE (the overage units are still shown). */
  overageMicros: number;
}

const UNIT = 1_000_000n;

/** The lines one item makes in one cycle, given its usage there (micro-units) and the proration that applies. */
function linesOf({ item, first }: CycleCharge, usage: bigint, proration: Proration): Line[] {
  const committedUnits = BigInt(item.commitment?.unitsMicros ?? 0);
  const overageUnits = usage > committedUnits ? usage - committedUnits : 0n;
  const identity = item.catalogProductId ? { catalogProductId: item.catalogProductId } : {};
  const overageLine: Line[] =
    item.commitment && overageUnits > 0n
      ? [{ name: `${item.name} overage`, kind: "USAGE", ...identity, quantityMicros: overageUnits, subtotalMicros: 0, overageMicros: 0 }]
      : [];
  const oneTimeMicros = first ? item.oneTimeMicros : 0;
  if (item.kind === "group") {
    const subtotalMicros = groupChargeMicros(item.baseAmountMicros, item.commitment, oneTimeMicros, proration);
    return [{ name: item.name, kind: "PRODUCT_GROUP", quantityMicros: usage, subtotalMicros, overageMicros: 0 }, ...overageLine];
  }
  const lines: Line[] = [];
  if (oneTimeMicros > 0) {
    const subtotalMicros = fixedChargeMicros(oneTimeMicros);
    lines.push({ name: item.name, kind: "ONE_TIME", ...identity, quantityMicros: UNIT, unitPriceMicros: oneTimeMicros, subtotalMicros, overageMicros: 0 });
  }
  if (item.commitment) {
    const { unitsMicros, priceMicros } = item.commitment;
    const subtotalMicros = lineChargeMicros(unitsMicros, priceMicros, proration);
    lines.push({ name: `${item.name} commitment`, kind: "COMMITMENT", ...identity, quantityMicros: BigInt(unitsMicros), unitPriceMicros: priceMicros, subtotalMicros, overageMicros: 0 });
  }
  if (item.meters.length > 0) {
    lines.push({ name: `${item.name} usage`, kind: "USAGE", ...identity, quantityMicros: usage, subtotalMicros: 0, overageMicros: 0 });
  }
  return [...lines, ...overageLine];
}

const breakdown = (micros: Omit<Record<keyof RevenueBreakdown, number>, "total">): RevenueBreakdown => ({
  subtotal: fromMicros(micros.subtotal),
  overage: fromMicros(micros.overage),
  discount: fromMicros(micros.discount),
  creditsUsed: fromMicros(micros.creditsUsed),
  tax: fromMicros(micros.tax),
  total: fromMicros(micros.subtotal + micros.overage - micros.discount + micros.tax - micros.creditsUsed),
});

/** END_OF_MONTH: the last day of the month the invoice is issued in; otherwise 30 days after issue. */
export function dueDateOf(issuedAt: Date, dueDays: "END_OF_MONTH" | undefined): Date {
  if (dueDays === "END_OF_MONTH") return new Date(Date.UTC(issuedAt.getUTCFullYear(), issuedAt.getUTCMonth() + 1, 0));
  return new Date(issuedAt.getTime() + 30 * 86_400_000);
}

export interface InvoiceInputs {
  contract: Contract;
  cycle: InvoiceCycle;
  /** Usage of each charge of the cycle (same order as `cycle.charges`) over its usage period, in micro-units. */
  usageMicros: bigint[];
  /** The customer's credit balance, in micro-units; whole cents of it pay the invoice. */
  creditBalanceMicros: number;
  dueDays: "END_OF_MONTH" | undefined;
}

/**
 * The invoice of one contract cycle. Rules: each line is rounded to cents (see amounts.ts); line total =
 * subtotal + overage − discount + tax − creditsUsed; the invoice's breakdown is the sum of its lines', and its
 * `amount` equals its `total`. Discount and tax are 0 (nothing configures them yet). Credits pay up to the
 * total, in whole cents, allocated to lines in order.
 */
export function composeInvoice({ contract, cycle, usageMicros, creditBalanceMicros, dueDays }: InvoiceInputs): InvoiceDraft {
  const lines = cycle.charges.flatMap((charge, index) => {
    const period = usagePeriod(contract, charge.cycle);
    const proration = contract.shouldProRateInvoices ? { days: period.days, periodDays: period.periodDays } : FULL_PERIOD;
    return linesOf(charge, usageMicros[index] ?? 0n, proration);
  });
  let creditsLeft = floorToCents(creditBalanceMicros);
  const lineItems = lines.map(({ subtotalMicros, overageMicros, quantityMicros, unitPriceMicros, ...line }) => {
    const creditsUsed = Math.min(creditsLeft, subtotalMicros + overageMicros);
    creditsLeft -= creditsUsed;
    return {
      ...line,
      ...(quantityMicros !== undefined && { quantity: Number(quantityMicros) / 1e6 }),
      ...(unitPriceMicros !== undefined && { unitPrice: fromMicros(unitPriceMicros) }),
      micros: { subtotal: subtotalMicros, overage: overageMicros, discount: 0, creditsUsed, tax: 0 },
    };
  });
  const sum = (field: "subtotal" | "overage" | "discount" | "creditsUsed" | "tax") =>
    lineItems.reduce((total, line) => total + line.micros[field], 0);
  const revenueBreakdown = breakdown({ subtotal: sum("subtotal"), overage: sum("overage"), discount: sum("discount"), creditsUsed: sum("creditsUsed"), tax: sum("tax") });
  const issuedAt = cycle.dueAt;
  return {
    customerId: contract.customerId,
    contractId: contract.id,
    name: `${contract.name}: ${dayKey(cycle.start)} to ${dayKey(cycle.end)}`,
    billingCycle: { startTime: cycle.start.toISOString(), endTime: cycle.end.toISOString() },
    revenueBreakdown,
    billingStatus: "None",
    dueDate: dueDateOf(issuedAt, dueDays).toISOString(),
    amount: revenueBreakdown.total,
    lineItems: lineItems.map(({ micros, ...line }) => ({ ...line, revenueBreakdown: breakdown(micros) })),
  };
}
