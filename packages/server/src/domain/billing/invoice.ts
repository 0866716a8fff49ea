import { type LineItem, MICROS } from "@billing/shared";
import { chargeProration } from "../contracts/pauses.js";
import { seatAdjustments, seatDays } from "../contracts/seats.js";
import { asMicros, type Micros, ZERO_MICROS } from "../money/micros.js";
import type { UsageWindow } from "../usage/reads.js";
import {
  fixedChargeMicros,
  groupChargeMicros,
  includedUnitsMicros,
  lineChargeMicros,
  type Proration,
} from "./amounts.js";
import { type Charge, chargeOf, lineKindOf, type TierCharge } from "./charge-models/index.js";
import type { AppliedDiscount, ContractInMicros } from "./contract.js";
import {
  type CoveredDays,
  type Cycle,
  contractDays,
  coveredPart,
  cyclesOf,
  DAY_MS,
  dayKey,
  splitShare,
  startOfUtcDay,
} from "./cycles.js";
import type { CycleCharge, PlannedInvoice, PricedProduct } from "./items.js";
import type { LineTaxInMicros, TaxTerms } from "./tax.js";

/**
 * The days of a charge's cycle that the contract covers (cut to `days`, those its version of the terms bills, when
 * given): the usage period, and the proration basis.
 */
export function usagePeriod(contract: ContractInMicros, cycle: Cycle, days?: CoveredDays) {
  const covered = coveredPart(cycle, days ?? contractDays(contract.startDate, contract.endDate));
  return {
    fromDay: dayKey(covered.from),
    toDayExclusive: dayKey(covered.to),
    days: covered.days,
    periodDays: covered.periodDays,
  };
}

/**
 * The usage an invoice prices, per charge of the cycle (same order as `cycle.charges`): each meter of the charge over
 * its usage period, cut after the day of `until` when given (a preview reads usage so far). A meter whose period is
 * cut to no day is left out: its usage is 0.
 */
export function usageWindows(contract: ContractInMicros, cycle: PlannedInvoice, until?: Date): UsageWindow[][] {
  const dayAfterUntil = until && dayKey(new Date(startOfUtcDay(until).getTime() + DAY_MS));
  return cycle.charges.map(({ item, cycle: itemCycle, days }) => {
    const period = usagePeriod(contract, itemCycle, days);
    const toDayExclusive =
      dayAfterUntil && dayAfterUntil < period.toDayExclusive ? dayAfterUntil : period.toDayExclusive;
    if (period.fromDay >= toDayExclusive) return [];
    return item.meters.map((meter) => ({ meter, fromDay: period.fromDay, toDayExclusive }));
  });
}

/** Each charge's usage per meter (MeterUsageMicros) from its windows, each read by `valueOf`. */
export const usageByCharge = (
  windows: readonly UsageWindow[][],
  readingOf: (window: UsageWindow) => bigint,
): MeterUsageMicros[] =>
  windows.map((ofCharge) => new Map(ofCharge.map((window) => [window.meter, readingOf(window)])));

/** A line as its charge model prices it, before discounts, taxes and credits (micro-units). */
export interface PricedLine {
  name: string;
  kind: LineItem["kind"];
  catalogProductId?: string;
  quantityMicros?: bigint;
  unitPriceMicros?: Micros;
  tiers?: TierCharge[];
  packages?: Charge["packages"];
  subtotalMicros: Micros;
  /** The version of the contract's terms that priced the line. */
  version?: number;
  /** Charged overage: units beyond the commitment × overagePrice under CHARGE; 0 under IGNORE (units still shown). */
  overageMicros: Micros;
  /** The tax rates its product (else its product group) names: the most specific level (see tax.ts). */
  taxRateCodes?: readonly string[];
  /** The index in `cycle.charges` of the charge that made it (the engine's; never stored). */
  charge?: number;
  /**
   * A LATE_USAGE line: the original invoice and product it adjusts (late-usage.ts), its units signed. A
   * THRESHOLD_BILLED line: the threshold invoice and product whose charge it takes off (thresholds.ts), 0 units.
   */
  adjusts?: LineAdjusts;
  /**
   * A seat refund the invoice could not take in full (the product's lines never go below 0): the product, the start
   * of the prepaid cycle it refunds and what is left of it, which a credit note of that cycle's invoice gives back
   * (services/billing/seat-refunds.ts). The engine's; never stored.
   */
  refundRest?: { product: string; cycleStart: Date; restMicros: Micros };
}

/** What a LATE_USAGE line adjusts: an earlier invoice's product. */
export interface LineAdjusts {
  invoiceId: string;
  number: string | null;
  product: string;
  quantityMicros: bigint;
}

/** A line in the stages after pricing: what discounts, taxes and credits did to it (see pipeline.ts). */
export interface InvoiceLine extends PricedLine {
  discountMicros: Micros;
  taxes: LineTaxInMicros[];
  creditsUsedMicros: Micros;
}

/** Usage of each meter (key → micro-units) over a charge's usage period. */
export type MeterUsageMicros = Map<string, bigint>;

/** The seats a PER_SEAT price bills in a charge's cycle (seats.ts), for the days its version of the terms bills. */
function seatsOf(contract: ContractInMicros, { cycle, days }: CycleCharge, price: PricedProduct) {
  return seatDays(contract, price.name, price.seats ?? 0, cycle, days);
}

/**
 * The adjustment lines of a PER_SEAT price billed in advance: seats changed in the cycle before, after its invoice was
 * issued (seatAdjustments), each "+3 seats from Apr 11" at its amount or "−10 seats from Apr 21" at a negative one (a
 * refund). The refunds together take off at most what the price's own line and the additions charge (`chargedMicros`):
 * a SEATS line may be negative, the product's lines together never are (the rest: docs/decisions.md, "Seats").
 */
function seatAdjustmentLines(
  contract: ContractInMicros,
  charge: CycleCharge,
  price: PricedProduct,
  chargedMicros: Micros,
): PricedLine[] {
  if (!charge.item.prepaid || price.pricing.type !== "PER_SEAT") return [];
  const covered = contractDays(contract.startDate, contract.endDate);
  let previous: Cycle | undefined;
  for (const cycle of cyclesOf(charge.item.scheduling, covered)) {
    if (cycle.end.getTime() === charge.cycle.start.getTime()) previous = cycle;
    if (cycle.start >= charge.cycle.start) break;
  }
  if (!previous) return [];
  const refunded = previous;
  const { priceMicros } = price.pricing;
  const adjustments = seatAdjustments(contract, price.name, price.seats ?? 0, previous, priceMicros, contract.currency);
  let room = adjustments.reduce<number>((sum, { amountMicros }) => sum + Math.max(0, amountMicros), chargedMicros);
  return adjustments.map((adjustment) => {
    let amountMicros = adjustment.amountMicros;
    if (amountMicros < 0) {
      amountMicros = asMicros(-Math.min(-amountMicros, room));
      room += amountMicros;
    }
    const restMicros = asMicros(amountMicros - adjustment.amountMicros);
    return {
      name: adjustment.name,
      kind: "SEATS" as const,
      ...(price.catalogProductId && { catalogProductId: price.catalogProductId }),
      // The seats added or removed (a count, so never negative: a refund's sign is its amount's).
      quantityMicros: BigInt(Math.abs(adjustment.seats)) * MICROS,
      unitPriceMicros: priceMicros,
      subtotalMicros: amountMicros,
      overageMicros: ZERO_MICROS,
      ...(price.taxRateCodes && { taxRateCodes: price.taxRateCodes }),
      ...(restMicros > 0 && { refundRest: { product: price.name, cycleStart: refunded.start, restMicros } }),
    };
  });
}

/** The lines of an item's own prices (FLAT, usage prices, seats): each priced by its type's charge model. */
function pricedLines(
  contract: ContractInMicros,
  charge: CycleCharge,
  usage: MeterUsageMicros,
  proration: Proration,
): PricedLine[] {
  const currency = contract.currency;
  return charge.item.prices.flatMap((price) => {
    const { name, catalogProductId, pricing, taxRateCodes } = price;
    const { subtotalMicros, quantityMicros, unitPriceMicros, tiers, packages } = chargeOf({
      pricing,
      quantityMicros: catalogProductId ? (usage.get(catalogProductId) ?? 0n) : 0n,
      proration,
      currency,
      ...(pricing.type === "PER_SEAT" && { seats: seatsOf(contract, charge, price) }),
    });
    const line: PricedLine = {
      name,
      kind: lineKindOf(pricing.type),
      ...(catalogProductId && { catalogProductId }),
      quantityMicros,
      ...(unitPriceMicros !== undefined && { unitPriceMicros }),
      ...(tiers && { tiers }),
      ...(packages && { packages }),
      subtotalMicros,
      overageMicros: ZERO_MICROS,
      ...(taxRateCodes && { taxRateCodes }),
    };
    return [line, ...seatAdjustmentLines(contract, charge, price, subtotalMicros)];
  });
}

/**
 * The lines one item makes in one cycle, given its meters' usage there, the proration that applies and the units its
 * commitment includes there (all of them, or the share of a part an amendment split off: includedUnitsMicros).
 */
function linesOf(
  contract: ContractInMicros,
  charge: CycleCharge,
  meterUsage: MeterUsageMicros,
  proration: Proration,
  includedMicros: number,
): PricedLine[] {
  const currency = contract.currency;
  const { item, first } = charge;
  const usage = item.meters.reduce((total, meter) => total + (meterUsage.get(meter) ?? 0n), 0n);
  const committedUnits = BigInt(includedMicros);
  const overageUnits = usage > committedUnits ? usage - committedUnits : 0n;
  // What every line of the item itself carries: its product and the tax rates it names.
  const identity = {
    ...(item.catalogProductId && { catalogProductId: item.catalogProductId }),
    ...(item.taxRateCodes && { taxRateCodes: item.taxRateCodes }),
  };
  const overagePriceMicros = item.commitment?.overagePriceMicros;
  // CHARGE: the overage units at overagePrice, by the PER_UNIT model (exact, rounded once).
  const overageMicros =
    overagePriceMicros === undefined
      ? ZERO_MICROS
      : chargeOf({
          pricing: { type: "PER_UNIT", priceMicros: overagePriceMicros },
          quantityMicros: overageUnits,
          proration,
          currency,
        }).subtotalMicros;
  const overagePrice = overagePriceMicros === undefined ? {} : { unitPriceMicros: overagePriceMicros };
  const overageLine: PricedLine[] =
    item.commitment && overageUnits > 0n
      ? [
          {
            name: `${item.name} overage`,
            kind: "USAGE",
            ...identity,
            quantityMicros: overageUnits,
            ...overagePrice,
            subtotalMicros: ZERO_MICROS,
            overageMicros,
          },
        ]
      : [];
  const oneTimeMicros = first ? item.oneTimeMicros : ZERO_MICROS;
  if (item.kind === "group") {
    const subtotalMicros = groupChargeMicros(
      item.baseAmountMicros,
      item.commitment,
      oneTimeMicros,
      proration,
      currency,
    );
    const groupLine: PricedLine = {
      name: item.name,
      kind: "PRODUCT_GROUP",
      ...identity,
      quantityMicros: usage,
      subtotalMicros,
      overageMicros: ZERO_MICROS,
    };
    return [groupLine, ...pricedLines(contract, charge, meterUsage, proration), ...overageLine];
  }
  const lines: PricedLine[] = [];
  if (oneTimeMicros > 0) {
    const subtotalMicros = fixedChargeMicros(oneTimeMicros, currency);
    lines.push({
      name: item.name,
      kind: "ONE_TIME",
      ...identity,
      quantityMicros: MICROS,
      unitPriceMicros: oneTimeMicros,
      subtotalMicros,
      overageMicros: ZERO_MICROS,
    });
  }
  if (item.commitment) {
    const { unitsMicros, priceMicros } = item.commitment;
    const subtotalMicros = lineChargeMicros(unitsMicros, priceMicros, proration, currency);
    lines.push({
      name: `${item.name} commitment`,
      kind: "COMMITMENT",
      ...identity,
      quantityMicros: BigInt(unitsMicros),
      unitPriceMicros: priceMicros,
      subtotalMicros,
      overageMicros: ZERO_MICROS,
    });
  }
  const priced = pricedLines(contract, charge, meterUsage, proration);
  // Usage a price does not charge is still shown, at no charge (it may be what a commitment covers).
  if (item.meters.length > 0 && !priced.some((line) => line.kind === "USAGE")) {
    lines.push({
      name: `${item.name} usage`,
      kind: "USAGE",
      ...identity,
      quantityMicros: usage,
      subtotalMicros: ZERO_MICROS,
      overageMicros: ZERO_MICROS,
    });
  }
  return [...lines, ...priced, ...overageLine];
}

/** What an invoice of one contract cycle is made from, credits aside. */
export interface InvoiceBasis {
  contract: ContractInMicros;
  cycle: PlannedInvoice;
  /** Usage of each charge of the cycle (same order as `cycle.charges`) over its usage period, per meter. */
  usage: MeterUsageMicros[];
  /** When the invoice is issued (finalized), or will be as far as is known: its due date counts from it. */
  issuedAt: Date;
  paymentTerms: PaymentTerms;
  tax: TaxTerms;
  /**
   * A TERM minimum commitment on the term's last invoice: what the term's earlier invoices charged (before tax, after
   * discounts), read from them (services/billing/invoice-basis.ts).
   */
  termChargedMicros?: Micros;
  /** The coupons redeemed on the contract, as discounts (discounts.ts): applied after the contract's own. */
  coupons?: AppliedDiscount[];
  /** LATE_USAGE lines (late-usage.ts): earlier cycles' late usage, priced on their own terms, added as they are. */
  lateUsage?: PricedLine[];
  /** THRESHOLD_BILLED lines (thresholds.ts): what the cycle's earlier threshold invoices billed, taken off. */
  thresholdBilled?: PricedLine[];
}

/** When an invoice is due after its issue: on the last day of that month, or a number of days (0..365) after it. */
export type PaymentTerms = "END_OF_MONTH" | { netDays: number };

/** The units a charge's commitment includes: all of them, or its part's share when an amendment splits the cycle. */
function includedOf(contract: ContractInMicros, { item, cycle, days }: CycleCharge): number {
  const unitsMicros = item.commitment?.unitsMicros ?? 0;
  const split = splitShare(cycle, contractDays(contract.startDate, contract.endDate), days);
  return split ? includedUnitsMicros(unitsMicros, split) : unitsMicros;
}

/** The lines stage: each charge of the cycle priced by its charge models, prorated (see chargeProration). */
export function priceLines({ contract, cycle, usage }: InvoiceBasis): PricedLine[] {
  return cycle.charges.flatMap((charge, index) =>
    linesOf(
      contract,
      charge,
      usage[index] ?? new Map(),
      chargeProration(contract, charge),
      includedOf(contract, charge),
    ).map((line) => ({ ...line, version: charge.version, charge: index })),
  );
}
