import { CONTRACT_DATES, DAY_MS, type Scheduling } from "@billing/shared";

/** All billing dates are UTC: a cycle starts at 00:00:00Z of its billing day. Re-exported for services/billing.ts. */
export { DAY_MS };

export interface Cycle {
  start: Date;
  end: Date;
}

/**
 * The UTC calendar days a contract covers: from its start's day up to, not including, its end's day, whatever
 * the times of day (`to` is absent for an open-ended contract). Both are midnights (UTC).
 */
export interface CoveredDays {
  from: Date;
  to: Date | undefined;
}

/** Midnight (UTC) of the day an instant falls on. */
/** Before every cycle of every contract (the earliest instant a Date holds). */
export const BEFORE_EVERYTHING = new Date(-8.64e15);

export const startOfUtcDay = (date: Date) => new Date(Math.floor(date.getTime() / DAY_MS) * DAY_MS);

export const contractDays = (startDate: string, endDate: string | undefined): CoveredDays => ({
  from: startOfUtcDay(new Date(startDate)),
  to: endDate === undefined ? undefined : startOfUtcDay(new Date(endDate)),
});

const monthIndex = (date: Date) => date.getUTCFullYear() * 12 + date.getUTCMonth();
const daysInMonth = (index: number) => new Date(Date.UTC(Math.floor(index / 12), (index % 12) + 1, 0)).getUTCDate();

/** The billing day of a month, clamped to the month's length (31 → 30 in April, 28 or 29 in February). */
export function billingDate(index: number, billingDay: number): Date {
  return new Date(Date.UTC(Math.floor(index / 12), index % 12, Math.min(billingDay, daysInMonth(index))));
}

/** Monthly on the day the contract starts: the schedule of products that carry none. */
export const defaultScheduling = (covered: CoveredDays): Scheduling => ({
  duration: { unit: "MONTH", value: 1 },
  billingDay: covered.from.getUTCDate(),
});

/**
 * The cycles of a schedule over the contract's covered days, in order: the first is the one containing the
 * first covered day (its start may precede it), then every `duration.value` months on the billing day, up to
 * the first one starting on or after the day the contract ends, and never past the service's horizon
 * (CONTRACT_DATES.until). A contract covering no day has no cycle.
 */
export function* cyclesOf(scheduling: Scheduling, covered: CoveredDays): Generator<Cycle> {
  const { from, to } = covered;
  if (to && to <= from) return;
  const months = scheduling.duration.value;
  const startMonth = monthIndex(from);
  let index = billingDate(startMonth, scheduling.billingDay) <= from ? startMonth : startMonth - months;
  // The candidate may sit more than one cycle back (e.g. a 3-month schedule): move forward to the containing one.
  while (billingDate(index + months, scheduling.billingDay) <= from) index += months;
  for (;;) {
    const start = billingDate(index, scheduling.billingDay);
    if ((to && start >= to) || start.getTime() >= CONTRACT_DATES.until) return;
    const end = billingDate(index + months, scheduling.billingDay);
    yield { start, end };
    index += months;
  }
}

const utcDay = (date: Date) => Math.floor(date.getTime() / DAY_MS);

/** The part of a cycle the contract covers, in whole UTC days, and the cycle's own length in days. */
export function coveredPart(cycle: Cycle, covered: CoveredDays) {
  const from = Math.max(utcDay(cycle.start), utcDay(covered.from));
  const to = Math.min(utcDay(cycle.end), covered.to ? utcDay(covered.to) : Number.POSITIVE_INFINITY);
  return {
    from: new Date(from * DAY_MS),
    to: new Date(to * DAY_MS),
    days: Math.max(0, to - from),
    periodDays: utcDay(cycle.end) - utcDay(cycle.start),
  };
}

/**
 * The share of a cycle that one version of the terms bills when an amendment splits the cycle: `days` of the
 * `coveredDays` the contract covers in it. Undefined when the version bills every covered day (no split).
 */
export function splitShare(cycle: Cycle, covered: CoveredDays, versionDays: CoveredDays) {
  const days = coveredPart(cycle, versionDays).days;
  const coveredDays = coveredPart(cycle, covered).days;
  return days < coveredDays ? { days, coveredDays } : undefined;
}

/** "YYYY-MM-DD" of a UTC date. */
export const dayKey = (date: Date) => date.toISOString().slice(0, 10);
