import { type Contract, DAY_MS, fromMicros, type InvoiceDraft, MICROS, type RevenueBreakdown } from "@billing/shared";
import {
  FULL_PERIOD,
  fixedChargeMicros,
  floorToCents,
  groupChargeMicros,
  lineChargeMicros,
  type Proration,
} from "./amounts.js";
import { type Charge, chargeOf, type TierCharge } from "./charge-models/index.js";
import { type Cycle, contractDays, coveredPart, dayKey } from "./cycles.js";
import type { CycleCharge, InvoiceCycle } from "./items.js";

/** The days of a charge's cycle that the contract covers: the usage period, and the proration basis. */
export function usagePeriod(contract: Contract, cycle: Cycle) {
  const covered = coveredPart(cycle, contractDays(contract.startDate, contract.endDate));
  return {
    fromDay: dayKey(covered.from),
    toDayExclusive: dayKey(covered.to),
    days: covered.days,
    periodDays: covered.periodDays,
  };
}

interface Line {
  name: string;
  kind: "ONE_TIME" | "FLAT" | "COMMITMENT" | "USAGE" | "PRODUCT_GROUP";
  catalogProductId?: string;
  quantityMicros?: bigint;
  unitPriceMicros?: number;
  tiers?: TierCharge[];
  packages?: Charge["packages"];
  subtotalMicros: number;
  /** Charged overage: units beyond the commitment × overagePrice under CHARGE; 0 under IGNORE (units still shown). */
  overageMicros: number;
}

/** Usage of each meter (key → micro-units) over a charge's usage period. */
export type MeterUsageMicros = Map<string, bigint>;

/** The lines of an item's own prices (FLAT, usage prices): each priced by its type's charge model. */
function pricedLines({ item }: CycleCharge, usage: MeterUsageMicros, proration: Proration): Line[] {
  return item.prices.map(({ name, catalogProductId, pricing }) => {
    const { subtotalMicros, quantityMicros, unitPriceMicros, tiers, packages } = chargeOf({
      pricing,
      quantityMicros: catalogProductId ? (usage.get(catalogProductId) ?? 0n) : 0n,
      proration,
    });
    return {
      name,
      kind: pricing.type === "FLAT" ? "FLAT" : "USAGE",
      ...(catalogProductId && { catalogProductId }),
      quantityMicros,
      ...(unitPriceMicros !== undefined && { unitPriceMicros }),
      ...(tiers && { tiers }),
      ...(packages && { packages }),
      subtotalMicros,
      overageMicros: 0,
    };
  });
}

/** The lines one item makes in one cycle, given its meters' usage there and the proration that applies. */
function linesOf(charge: CycleCharge, meterUsage: MeterUsageMicros, proration: Proration): Line[] {
  const { item, first } = charge;
  const usage = item.meters.reduce((total, meter) => total + (meterUsage.get(meter) ?? 0n), 0n);
  const committedUnits = BigInt(item.commitment?.unitsMicros ?? 0);
  const overageUnits = usage > committedUnits ? usage - committedUnits : 0n;
  const identity = item.catalogProductId ? { catalogProductId: item.catalogProductId } : {};
  const overagePriceMicros = item.commitment?.overagePriceMicros;
  // CHARGE: the overage units at overagePrice, by the PER_UNIT model (exact, rounded once).
  const overageMicros =
    overagePriceMicros === undefined
      ? 0
      : chargeOf({
          pricing: { type: "PER_UNIT", priceMicros: overagePriceMicros },
          quantityMicros: overageUnits,
          proration,
        }).subtotalMicros;
  const overagePrice = overagePriceMicros === undefined ? {} : { unitPriceMicros: overagePriceMicros };
  const overageLine: Line[] =
    item.commitment && overageUnits > 0n
      ? [
          {
            name: `${item.name} overage`,
            kind: "USAGE",
            ...identity,
            quantityMicros: overageUnits,
            ...overagePrice,
            subtotalMicros: 0,
            overageMicros,
          },
        ]
      : [];
  const oneTimeMicros = first ? item.oneTimeMicros : 0;
  if (item.kind === "group") {
    const subtotalMicros = groupChargeMicros(item.baseAmountMicros, item.commitment, oneTimeMicros, proration);
    const groupLine: Line = {
      name: item.name,
      kind: "PRODUCT_GROUP",
      quantityMicros: usage,
      subtotalMicros,
      overageMicros: 0,
    };
    return [groupLine, ...pricedLines(charge, meterUsage, proration), ...overageLine];
  }
  const lines: Line[] = [];
  if (oneTimeMicros > 0) {
    const subtotalMicros = fixedChargeMicros(oneTimeMicros);
    lines.push({
      name: item.name,
      kind: "ONE_TIME",
      ...identity,
      quantityMicros: MICROS,
      unitPriceMicros: oneTimeMicros,
      subtotalMicros,
      overageMicros: 0,
    });
  }
  if (item.commitment) {
    const { unitsMicros, priceMicros } = item.commitment;
    const subtotalMicros = lineChargeMicros(unitsMicros, priceMicros, proration);
    lines.push({
      name: `${item.name} commitment`,
      kind: "COMMITMENT",
      ...identity,
      quantityMicros: BigInt(unitsMicros),
      unitPriceMicros: priceMicros,
      subtotalMicros,
      overageMicros: 0,
    });
  }
  const priced = pricedLines(charge, meterUsage, proration);
  // Usage a price does not charge is still shown, at no charge (it may be what a commitment covers).
  if (item.meters.length > 0 && !priced.some((line) => line.kind === "USAGE")) {
    lines.push({
      name: `${item.name} usage`,
      kind: "USAGE",
      ...identity,
      quantityMicros: usage,
      subtotalMicros: 0,
      overageMicros: 0,
    });
  }
  return [...lines, ...priced, ...overageLine];
}

const tierOf = ({ upToMicros, quantityMicros, unitPriceMicros, flatPriceMicros, amountMicros }: TierCharge) => ({
  upTo: upToMicros === null ? null : fromMicros(upToMicros),
  quantity: Number(quantityMicros) / 1e6,
  unitPrice: fromMicros(unitPriceMicros),
  flatPrice: fromMicros(flatPriceMicros),
  amount: fromMicros(amountMicros),
});

const breakdown = (micros: Omit<Record<keyof RevenueBreakdown, number>, "total">): RevenueBreakdown => ({
  subtotal: fromMicros(micros.subtotal),
  overage: fromMicros(micros.overage),
  discount: fromMicros(micros.discount),
  creditsUsed: fromMicros(micros.creditsUsed),
  tax: fromMicros(micros.tax),
  total: fromMicros(micros.subtotal + micros.overage - micros.discount + micros.tax - micros.creditsUsed),
});

/**
 * END_OF_MONTH: the last day (00:00Z) of the month the invoice is issued in, or of the next month when the invoice
 * is issued on that very day (due at its own issue instant, it would leave the customer no time); otherwise 30 days
 * after issue.
 */
export function dueDateOf(issuedAt: Date, dueDays: "END_OF_MONTH" | undefined): Date {
  if (dueDays !== "END_OF_MONTH") return new Date(issuedAt.getTime() + 30 * DAY_MS);
  const lastDayOf = (monthsAfter: number) =>
    new Date(Date.UTC(issuedAt.getUTCFullYear(), issuedAt.getUTCMonth() + monthsAfter + 1, 0));
  const thisMonth = lastDayOf(0);
  return thisMonth > issuedAt ? thisMonth : lastDayOf(1);
}

export interface InvoiceInputs {
  contract: Contract;
  cycle: InvoiceCycle;
  /** Usage of each charge of the cycle (same order as `cycle.charges`) over its usage period, per meter. */
  usage: MeterUsageMicros[];
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
export function composeInvoice({ contract, cycle, usage, creditBalanceMicros, dueDays }: InvoiceInputs): InvoiceDraft {
  const lines = cycle.charges.flatMap((charge, index) => {
    const period = usagePeriod(contract, charge.cycle);
    const proration = contract.shouldProRateInvoices
      ? { days: period.days, periodDays: period.periodDays }
      : FULL_PERIOD;
    return linesOf(charge, usage[index] ?? new Map(), proration);
  });
  let creditsLeft = floorToCents(creditBalanceMicros);
  const lineItems = lines.map(
    ({ subtotalMicros, overageMicros, quantityMicros, unitPriceMicros, tiers, packages, ...line }) => {
      const creditsUsed = Math.min(creditsLeft, subtotalMicros + overageMicros);
      creditsLeft -= creditsUsed;
      return {
        ...line,
        ...(quantityMicros !== undefined && { quantity: Number(quantityMicros) / 1e6 }),
        ...(unitPriceMicros !== undefined && { unitPrice: fromMicros(unitPriceMicros) }),
        ...(tiers && { tiers: tiers.map(tierOf) }),
        ...(packages && {
          packages: {
            count: Number(packages.count),
            size: fromMicros(packages.sizeMicros),
            price: fromMicros(packages.priceMicros),
          },
        }),
        micros: { subtotal: subtotalMicros, overage: overageMicros, discount: 0, creditsUsed, tax: 0 },
      };
    },
  );
  const sum = (field: "subtotal" | "overage" | "discount" | "creditsUsed" | "tax") =>
    lineItems.reduce((total, line) => total + line.micros[field], 0);
  const revenueBreakdown = breakdown({
    subtotal: sum("subtotal"),
    overage: sum("overage"),
    discount: sum("discount"),
    creditsUsed: sum("creditsUsed"),
    tax: sum("tax"),
  });
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
