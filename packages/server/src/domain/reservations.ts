import type { MeterAggregation, ReservationStatus } from "@billing/shared";

/**
 * How long past its expiry a reservation still holds its units: a settlement accepted just before `expiresAt` (on
 * any instance's clock) has written its usage by then, so its units are never free and unrecorded at once.
 */
export const SETTLE_MARGIN_MS = 10_000;

/** SUM and COUNT add up what is reserved; MAX is a cap on one value; LATEST and UNIQUE_COUNT cannot be reserved. */
export const reservable = (aggregation: MeterAggregation): boolean =>
  aggregation === "SUM" || aggregation === "COUNT" || aggregation === "MAX";

/** A slot of a reservation chain as the admission reads it. */
export interface HeldSlot {
  n: number;
  amountMicros: bigint;
  /** `expiresAt` + SETTLE_MARGIN_MS: until then it holds its units unless settled. */
  holdUntil: Date;
  settled: boolean;
}

/** The units the open slots hold at `now`: each unsettled slot until its `holdUntil`. */
export const heldMicrosOf = (slots: readonly HeldSlot[], now: Date): bigint =>
  slots.reduce(
    (total, slot) => (!slot.settled && slot.holdUntil.getTime() > now.getTime() ? total + slot.amountMicros : total),
    0n,
  );

export interface AdmissionInput {
  aggregation: MeterAggregation;
  /** The commitment's units; null: unlimited. */
  limitMicros: bigint | null;
  usageMicros: bigint;
  heldMicros: bigint;
  amountMicros: bigint;
}

export interface Admission {
  admitted: boolean;
  /** What could still be reserved before this one: null when unlimited. */
  remainingMicros: bigint | null;
}

/**
 * Whether a reservation fits. SUM and COUNT: usage + held + amount ≤ limit; e.g. limit 1,000, usage 700, held 290:
 * 10 fits (remaining 10), 11 does not. MAX is a cap on one value: amount ≤ limit, whatever else is held or used
 * (e.g. limit 64: 64 fits, 65 does not; remaining 64). No limit: everything fits.
 */
export function admissionOf({ aggregation, limitMicros, usageMicros, heldMicros, amountMicros }: AdmissionInput) {
  if (limitMicros === null) return { admitted: true, remainingMicros: null } satisfies Admission;
  const taken = aggregation === "MAX" ? 0n : usageMicros + heldMicros;
  const remainingMicros = taken >= limitMicros ? 0n : limitMicros - taken;
  return { admitted: amountMicros <= remainingMicros, remainingMicros } satisfies Admission;
}

/** A reservation's status at `now`: SETTLED once settled, EXPIRED from `expiresAt` on, OPEN before. */
export function reservationStatusOf(expiresAt: Date, settled: boolean, now: Date): ReservationStatus {
  if (settled) return "SETTLED";
  return expiresAt.getTime() <= now.getTime() ? "EXPIRED" : "OPEN";
}

/**
 * The usage events recording a settlement of `micros` units: SUM and MAX one event of that value under the
 * reservation's ref; COUNT one event per unit (whole units only), refs `ref`, `ref:2`, `ref:3`…; e.g. COUNT 3 of
 * ref "r" → refs r, r:2, r:3 (values unused).
 */
export function settlementRefs(aggregation: MeterAggregation, ref: string, micros: bigint): string[] {
  if (aggregation !== "COUNT") return [ref];
  const count = Number(micros / 1_000_000n);
  return Array.from({ length: count }, (_, index) => (index === 0 ? ref : `${ref}:${index + 1}`));
}
