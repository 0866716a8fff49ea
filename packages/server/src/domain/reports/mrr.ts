import { MICROS_PER_UNIT } from "@billing/shared";
import type { CommitmentInMicros, ContractInMicros, ProductInMicros, TermsInMicros } from "../billing/contract.js";
import { mostSpecificCodes } from "../billing/tax.js";
import { termsWindows } from "../contracts/amendments.js";
import { renewsAtEnd } from "../contracts/billed.js";
import { isPausedOn } from "../contracts/pauses.js";
import { seatsOn } from "../contracts/seats.js";
import { discountMoments, netRecurringMicros, type RecurringCharge, TERMS_ALONE } from "./mrr-net.js";

/**
 * Monthly recurring revenue (docs/decisions.md, "MRR"). A contract's recurring MRR from an instant on: its FLAT,
 * PER_SEAT (× the seats of that day) and COMMITMENT (units × price) charges of a cycle ÷ the cycle's months, of the
 * version of its terms in force, while it is live (started, not ended, terminated, deleted or paused); 0 otherwise.
 * `live` says whether it is (a contract of usage only is live at 0 recurring).
 */
export interface MrrPoint {
  from: Date;
  micros: number;
  live: boolean;
}

/** The MRR a contract's usage gives: the usage revenue of one finalized cycle (0 for a voided invoice's). */
export interface MrrUsage {
  contractId: string;
  cycleEnd: Date;
  micros: number;
}

/**
 * A contract's recurring MRR over time, as its latest change left it: the latest `seq` of a contract wins, and of one
 * `seq` the latest `revision` (a coupon redeemed since that change; absent: 0).
 */
export interface MrrCurve {
  contractId: string;
  customerId: string;
  seq: number;
  revision?: number;
  points: MrrPoint[];
}

/** Whether curve `a` of a contract was written after `b`. */
const isLaterCurve = (a: MrrCurve, b: MrrCurve) =>
  a.seq > b.seq || (a.seq === b.seq && (a.revision ?? 0) > (b.revision ?? 0));

const NEVER_LIVE = new Set(["InReview", "Error"]);

const commitmentMicros = (commitment: CommitmentInMicros | undefined) =>
  commitment ? Number((BigInt(commitment.unitsMicros) * BigInt(commitment.priceMicros)) / BigInt(MICROS_PER_UNIT)) : 0;

/** A cycle of `months` months' charge as a month's: ÷ months, to the micro-unit (half away from zero). */
const perMonth = (micros: number, months: number) => Math.sign(micros) * Math.round(Math.abs(micros) / months);

function productCharge(
  contract: ContractInMicros,
  product: ProductInMicros,
  at: Date,
  groupCodes?: readonly string[],
): RecurringCharge {
  const pricing = product.pricing;
  let micros = commitmentMicros(product.commitment);
  if (pricing?.type === "FLAT") micros += pricing.priceMicros;
  if (pricing?.type === "PER_SEAT")
    micros += pricing.priceMicros * seatsOn(contract, product.displayName, product.seats ?? 0, at);
  const months = product.scheduling?.duration.value ?? 1;
  return {
    names: [product.displayName, ...(product.catalogProductId ? [product.catalogProductId] : [])],
    months,
    micros: perMonth(micros, months),
    taxRateCodes: mostSpecificCodes(product.taxRateCodes, groupCodes),
    discounts: product.discounts ?? [],
  };
}

/** The recurring charges of a month of `terms` on the instant `at`, before discounts and tax. */
export function recurringChargesOf(contract: ContractInMicros, terms: TermsInMicros, at: Date): RecurringCharge[] {
  const charges = (terms.products ?? []).map((product) => productCharge(contract, product, at));
  for (const group of terms.productGroups ?? []) {
    charges.push({
      names: [group.displayName],
      months: 1,
      micros: (group.baseAmountMicros ?? 0) + commitmentMicros(group.commitment),
      taxRateCodes: group.taxRateCodes,
      discounts: [],
    });
    for (const product of group.products) charges.push(productCharge(contract, product, at, group.taxRateCodes));
  }
  return charges;
}

/**
 * The contract's recurring MRR curve: a point at every instant its MRR may change (start, end, termination, deletion,
 * each pause's start and end, each version of its terms, each seat change, each discount's and coupon's start and
 * end), with the value from then on, net of recurring discounts and inclusive tax under `terms` (mrr-net.ts). A
 * contract that renews at its end (renewsAtEnd, as billing runs and reads decide it) never ends by its term; an
 * `autoRenewContract` one entered after its end expired at it, as reads show it. `endedAt`: a deletion's moment.
 */
export function recurringCurve(contract: ContractInMicros, endedAt?: Date, terms = TERMS_ALONE): MrrPoint[] {
  const start = Date.parse(contract.startDate);
  const ends = [
    contract.endDate && !renewsAtEnd(contract) ? Date.parse(contract.endDate) : Infinity,
    contract.terminationAt ? Date.parse(contract.terminationAt) : Infinity,
    endedAt ? endedAt.getTime() : Infinity,
  ];
  const end = Math.min(...ends);
  const windows = termsWindows(contract);
  const paused =
    contract.status === "Inactive" && !contract.inactivePeriods?.length
      ? [{ from: contract.startDate }]
      : contract.inactivePeriods;
  const moments = new Set<number>([start, ...ends.filter(Number.isFinite)]);
  for (const window of windows) if (window.days.from) moments.add(window.days.from.getTime());
  for (const change of contract.seatChanges ?? []) moments.add(Date.parse(change.effectiveFrom));
  for (const moment of discountMoments(contract, terms)) moments.add(moment);
  for (const period of paused ?? []) {
    moments.add(Date.parse(period.from));
    if (period.to) moments.add(Date.parse(period.to));
  }
  const points: MrrPoint[] = [];
  for (const time of [...moments].filter((t) => t >= start).sort((a, b) => a - b)) {
    const at = new Date(time);
    const live = !NEVER_LIVE.has(contract.status) && time < end && !isPausedOn(paused, at);
    const window = windows.find(
      ({ days }) => (!days.from || days.from.getTime() <= time) && (!days.to || time < days.to.getTime()),
    );
    const charges = live && window ? recurringChargesOf(contract, window.terms, at) : [];
    const micros = charges.length > 0 ? netRecurringMicros(contract, charges, at, terms) : 0;
    const last = points.at(-1);
    if (!last || last.micros !== micros || last.live !== live) points.push({ from: at, micros, live });
  }
  return points;
}

/** The point in force just before `boundary` (at its last instant before). */
function pointBefore(points: readonly MrrPoint[], boundary: Date): MrrPoint | undefined {
  let found: MrrPoint | undefined;
  for (const point of points) {
    if (point.from.getTime() >= boundary.getTime()) break;
    found = point;
  }
  return found;
}

export interface ContractMrr {
  recurring: number;
  usage: number;
  total: number;
}

/** A finalized cycle's usage counts as MRR while it is the trailing one and ended at most this long before. */
export const USAGE_TRAILING_MS = 62 * 86_400_000;

/**
 * A contract's MRR just before `boundary`: its recurring value then, plus, while it is live, the usage MRR of its
 * trailing completed cycle (the latest usage whose cycle ended by then, and within 62 days before it: a contract
 * whose cycles stopped being invoiced stops counting usage; `usages` of the contract, any order).
 */
export function contractMrrBefore(curve: MrrCurve, usages: readonly MrrUsage[], boundary: Date): ContractMrr {
  const point = pointBefore(curve.points, boundary);
  if (!point?.live) return { recurring: 0, usage: 0, total: 0 };
  let trailing: MrrUsage | undefined;
  for (const usage of usages)
    if (usage.cycleEnd.getTime() <= boundary.getTime() && (!trailing || usage.cycleEnd > trailing.cycleEnd))
      trailing = usage;
  if (trailing && trailing.cycleEnd.getTime() <= boundary.getTime() - USAGE_TRAILING_MS) trailing = undefined;
  const usage = trailing?.micros ?? 0;
  return { recurring: point.micros, usage, total: point.micros + usage };
}

export type MrrMovementKind = "new" | "expansion" | "contraction" | "churn" | "reactivation";

export interface MrrMove {
  contractId: string;
  customerId: string;
  before: number;
  after: number;
}

export interface MrrPeriod {
  start: Date;
  end: Date;
  recurring: number;
  usage: number;
  mrr: number;
  movements: Record<MrrMovementKind, { amount: number; contracts: MrrMove[] }>;
}

/**
 * Whether the contract had MRR above 0 before `boundary` (so a return from 0 is a reactivation): by its curve at any
 * instant, or by a usage of a cycle ended in the 62 days before. Only those usages: a report reads no older ones,
 * so a month's movements are the same whichever window (or closing) reads it.
 */
const hadMrrBefore = (curve: MrrCurve, usages: readonly MrrUsage[], boundary: Date) =>
  curve.points.some((point) => point.from < boundary && point.live && point.micros > 0) ||
  usages.some(
    (usage) =>
      usage.cycleEnd < boundary &&
      usage.cycleEnd.getTime() >= boundary.getTime() - USAGE_TRAILING_MS &&
      usage.micros > 0,
  );

/** Which movement a contract's MRR going from `before` to `after` over a period is, if any. */
export function movementOf(before: number, after: number, hadBefore: boolean): MrrMovementKind | undefined {
  if (before === after) return undefined;
  if (before === 0) return hadBefore ? "reactivation" : "new";
  if (after === 0) return "churn";
  return after > before ? "expansion" : "contraction";
}

/**
 * MRR per period (calendar months of the report): at each period's end, each contract's MRR and their sum; its
 * movements from the period's start to its end, by contract. `opening` is the sum at the first period's start, so
 * opening + Σ movements up to a period = its mrr. Curves: the latest of each contract; usages: any of theirs.
 */
export function mrrOf(
  curves: readonly MrrCurve[],
  usages: readonly MrrUsage[],
  periods: readonly { start: Date; end: Date }[],
): { opening: number; periods: MrrPeriod[] } {
  const latest = new Map<string, MrrCurve>();
  for (const curve of curves) {
    const seen = latest.get(curve.contractId);
    if (!seen || isLaterCurve(curve, seen)) latest.set(curve.contractId, curve);
  }
  const usagesOf = new Map<string, MrrUsage[]>();
  for (const usage of usages) usagesOf.set(usage.contractId, [...(usagesOf.get(usage.contractId) ?? []), usage]);
  const contracts = [...latest.values()].sort((a, b) => (a.contractId < b.contractId ? -1 : 1));
  let opening = 0;
  if (periods[0])
    for (const curve of contracts)
      opening += contractMrrBefore(curve, usagesOf.get(curve.contractId) ?? [], periods[0].start).total;
  const result = periods.map(({ start, end }) => {
    const period: MrrPeriod = {
      start,
      end,
      recurring: 0,
      usage: 0,
      mrr: 0,
      movements: {
        new: { amount: 0, contracts: [] },
        expansion: { amount: 0, contracts: [] },
        contraction: { amount: 0, contracts: [] },
        churn: { amount: 0, contracts: [] },
        reactivation: { amount: 0, contracts: [] },
      },
    };
    for (const curve of contracts) {
      const own = usagesOf.get(curve.contractId) ?? [];
      const before = contractMrrBefore(curve, own, start).total;
      const after = contractMrrBefore(curve, own, end);
      period.recurring += after.recurring;
      period.usage += after.usage;
      const kind = movementOf(before, after.total, hadMrrBefore(curve, own, start));
      if (!kind) continue;
      const { contractId, customerId } = curve;
      period.movements[kind].amount += after.total - before;
      period.movements[kind].contracts.push({ contractId, customerId, before, after: after.total });
    }
    period.mrr = period.recurring + period.usage;
    return period;
  });
  return { opening, periods: result };
}
