import { createHash } from "node:crypto";
import { type Micros, minMicros, ZERO_MICROS } from "./money/micros.js";

/**
 * A recurring grant as issuance reads it (docs/decisions.md, "Recurring credits and rollover"): period k (1, 2, …)
 * starts `everyMonths` × (k − 1) months after `anchor`; `count` periods in all (undefined: until stopped). Amounts in
 * micro-units.
 */
export interface Recurrence {
  anchor: Date;
  everyMonths: number;
  count: number | undefined;
  /** At most this much of what a period leaves carries into the next; undefined: nothing does. */
  rolloverMaxMicros: Micros | undefined;
  /** Each period's grant expires this long after its start; undefined: at the next period's start. */
  expiresAfter: { unit: "DAY" | "MONTH"; value: number } | undefined;
}

const DAY_MS = 86_400_000;

/** `months` months after `date`, at its time of day, its day clamped to the month's length (Jan 31 → Feb 28). */
export function addMonths(date: Date, months: number): Date {
  const index = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const shifted = new Date(date.getTime());
  shifted.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
  return shifted;
}

/** When period `period` (1, 2, …) starts: always counted from the anchor, so clamped days do not drift. */
export const periodStart = (recurrence: Pick<Recurrence, "anchor" | "everyMonths">, period: number): Date =>
  addMonths(recurrence.anchor, recurrence.everyMonths * (period - 1));

/** The terms of a period's grant: effective at its start, expiring at the next period's start (or `expiresAfter`). */
export function periodTerms(recurrence: Recurrence, period: number): { effectiveAt: Date; expiresAt: Date } {
  const effectiveAt = periodStart(recurrence, period);
  const { expiresAfter } = recurrence;
  if (!expiresAfter) return { effectiveAt, expiresAt: periodStart(recurrence, period + 1) };
  const expiresAt =
    expiresAfter.unit === "DAY"
      ? new Date(effectiveAt.getTime() + expiresAfter.value * DAY_MS)
      : addMonths(effectiveAt, expiresAfter.value);
  return { effectiveAt, expiresAt };
}

/**
 * The last period started by `now` (0: none yet), within `count`, and before `until` (a contract's end: a period
 * starting at or after it is not issued).
 */
export function lastPeriodStarted(recurrence: Recurrence, now: Date, until?: Date): number {
  const months =
    (now.getUTCFullYear() - recurrence.anchor.getUTCFullYear()) * 12 +
    (now.getUTCMonth() - recurrence.anchor.getUTCMonth());
  let period = Math.max(0, Math.floor(months / recurrence.everyMonths) + 1);
  // The estimate may be one too far (a day or time of month not reached yet): step back to a started period.
  while (period > 0 && periodStart(recurrence, period).getTime() > now.getTime()) period -= 1;
  if (recurrence.count !== undefined) period = Math.min(period, recurrence.count);
  while (period > 0 && until && periodStart(recurrence, period).getTime() >= until.getTime()) period -= 1;
  return period;
}

/**
 * When the next period after `issued` starts (undefined: no more periods), to look at the recurrence again then.
 */
export function nextPeriodStart(recurrence: Recurrence, issued: number, until?: Date): Date | undefined {
  const next = issued + 1;
  if (recurrence.count !== undefined && next > recurrence.count) return undefined;
  const start = periodStart(recurrence, next);
  return until && start.getTime() >= until.getTime() ? undefined : start;
}

/**
 * What carries into period `period`'s rollover grant: what the previous period's grants (its own and its rollover)
 * left when they expired, up to the maximum. Nothing into the first period, nor without a rollover.
 */
export const rolloverMicros = (recurrence: Recurrence, period: number, expiredMicros: Micros): Micros =>
  period <= 1 || recurrence.rolloverMaxMicros === undefined
    ? ZERO_MICROS
    : minMicros(recurrence.rolloverMaxMicros, expiredMicros);

/**
 * The id of a period's `Grant` entry (or of its rollover grant): derived from the recurring grant's id and the
 * period, so that the ledger's unique `_id` lets one writer only insert it, however many instances and calls issue
 * the period at once. 24 hex digits: an ObjectId's form, as every entry id.
 */
export const periodGrantId = (recurringGrantId: string, period: number, kind: "grant" | "rollover"): string =>
  createHash("sha256").update(`${recurringGrantId}/${period}/${kind}`).digest("hex").slice(0, 24);

/**
 * Rules of a recurring `POST /credits` that depend on the clock or on other fields (the schema checks each alone):
 * no `expiresAt` (each period's grant expires at the next period's start), and an `effectiveAt` at most one period
 * ago (a recurrence does not backfill a history of periods). Empty when valid.
 */
export function recurrenceIssues(
  input: { effectiveAt?: string | undefined; expiresAt?: string | undefined },
  everyMonths: number,
  now: Date,
): { path: string; message: string }[] {
  if (input.expiresAt !== undefined)
    return [{ path: "expiresAt", message: "not with recurrence: each period's grant expires at the next period" }];
  if (input.effectiveAt !== undefined && addMonths(new Date(input.effectiveAt), everyMonths) <= now)
    return [{ path: "effectiveAt", message: "with recurrence, at most one period before now" }];
  return [];
}
