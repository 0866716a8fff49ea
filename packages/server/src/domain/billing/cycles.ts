import { CONTRACT_DATES, type Scheduling } from "@billing/shared";

/** All billing dates are UTC: a cycle starts at 00:00:00Z of its billing day. */
const DAY_MS = 86_400_000;

export interface Cycle {
  start: Date;
  end: Date;
}

const monthIndex = (date: Date) => date.getUTCFullYear() * 12 + date.getUTCMonth();
const daysInMonth = (index: number) => new Date(Date.UTC(Math.floor(index / 12), (index % 12) + 1, 0)).getUTCDate();

/** The billing day of a month, clamped to the month's length (31 → 30 in April, 28 or 29 in February). */
export function billingDate(index: number, billingDay: number): Date {
  return new Date(Date.UTC(Math.floor(index / 12), index % 12, Math.min(billingDay, daysInMonth(index))));
}

/** Monthly on the day the contract starts: the schedule of products that carry none. */
export const defaultScheduling = (contractStart: Date): Scheduling => ({
  duration: { unit: "MONTH", value: 1 },
  billingDay: contractStart.getUTCDate(),
});

/**
 * The cycles of a schedule over a contract, in order: the first is the one containing the contract's start
 * (its start may precede the contract's), then every `duration.value` months on the billing day, until the
 * contract's end (exclusive), and never past the service's horizon (CONTRACT_DATES.until).
 */
export function* cyclesOf(scheduling: Scheduling, contractStart: Date, contractEnd: Date | undefined): Generator<Cycle> {
  const months = scheduling.duration.value;
  const startMonth = monthIndex(contractStart);
  let index = billingDate(startMonth, scheduling.billingDay) <= contractStart ? startMonth : startMonth - months;
  // The candidate may sit more than one cycle back (e.g. a 3-month schedule): move forward to the containing one.
  while (billingDate(index + months, scheduling.billingDay) <= contractStart) index += months;
  for (;;) {
    const start = billingDate(index, scheduling.billingDay);
    if ((contractEnd && start >= contractEnd) || start.getTime() >= CONTRACT_DATES.until) return;
    const end = billingDate(index + months, scheduling.billingDay);
    yield { start, end };
    index += months;
  }
}

const utcDay = (date: Date) => Math.floor(date.getTime() / DAY_MS);

/**
 * The part of a cycle the contract covers, in whole UTC days: a contract starting at any time of a day covers
 * that day; one ending at any time after midnight covers its last day.
 */
export function coveredDays(cycle: Cycle, contractStart: Date, contractEnd: Date | undefined) {
  const from = Math.max(utcDay(cycle.start), utcDay(contractStart));
  const endDay = contractEnd ? Math.ceil(contractEnd.getTime() / DAY_MS) : Number.POSITIVE_INFINITY;
  const to = Math.min(utcDay(cycle.end), endDay);
  return { from: new Date(from * DAY_MS), to: new Date(to * DAY_MS), days: Math.max(0, to - from), periodDays: utcDay(cycle.end) - utcDay(cycle.start) };
}

/** "YYYY-MM-DD" of a UTC date. */
export const dayKey = (date: Date) => date.toISOString().slice(0, 10);
