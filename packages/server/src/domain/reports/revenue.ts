import { DAY_MS } from "@billing/shared";
import { roundToMinorUnit } from "../money/currency.js";

/**
 * How one amount becomes revenue: `EVEN` evenly per UTC day over [start, end) (a flat, commitment or seat line over
 * its invoice's cycle), `ON_DAY` all on the UTC day of `start` (a one-time line; a credit note's reversal),
 * `USAGE_DAYS` on the days its usage happened, each day's share in `days` (a usage line).
 */
export interface RecognitionLine {
  mode: "EVEN" | "ON_DAY" | "USAGE_DAYS";
  start: Date;
  end: Date;
  /** Revenue in micro-units: the line's total less its tax (exclusive and inclusive); negative for a reversal. */
  micros: number;
  /** USAGE_DAYS: each usage day (its UTC midnight) with its share, in day order; the shares sum to `micros`. */
  days?: { day: Date; micros: number }[];
}

/** A change's revenue: its lines, when they were billed (their invoice's issue, a note's date), their currency. */
export interface RecognitionSchedule {
  billedAt: Date;
  currency: string;
  lines: RecognitionLine[];
}

const utcDay = (at: Date) => Math.floor(at.getTime() / DAY_MS);

/** Whole UTC days of [start, end): a part day counts whole (a cycle from Mar 15 12:00 has Mar 15). At least 1. */
const daysOf = ({ start, end }: RecognitionLine) => Math.max(1, Math.ceil(end.getTime() / DAY_MS) - utcDay(start));

/**
 * What a line has recognized before the moment `at` (its UTC days that began before `at`), with cumulative rounding
 * to the currency's minor unit: after k of N days, round(micros × k / N) to the minor unit, half away from zero; after
 * N days exactly `micros`. So Σ recognized over a line's life is its amount, and each day's share is the difference of
 * two roundings (1,200.00 over 365 days: after 17 days round(120000 × 17 / 365 = 5589.04) = 5589 cents = 55.89).
 */
export function recognizedBefore(line: RecognitionLine, at: Date, currency: string): number {
  if (line.mode === "ON_DAY") return at.getTime() > utcDay(line.start) * DAY_MS ? line.micros : 0;
  if (line.mode === "USAGE_DAYS")
    return (line.days ?? []).reduce((sum, day) => (day.day.getTime() < at.getTime() ? sum + day.micros : sum), 0);
  const total = daysOf(line);
  const elapsed = Math.min(total, Math.max(0, Math.ceil(at.getTime() / DAY_MS) - utcDay(line.start)));
  return cumulativeShare(line.micros, BigInt(elapsed), BigInt(total), currency);
}

/** After `done` of `whole` (days, or units): round(micros × done / whole) to the minor unit; all of it at the end. */
function cumulativeShare(micros: number, done: bigint, whole: bigint, currency: string): number {
  if (done >= whole) return micros;
  if (done <= 0n) return 0;
  return roundToMinorUnit(BigInt(micros) * done, whole, currency);
}

/** One UTC day's usage of a meter ("YYYY-MM-DD", micro-units of the meter's reading that day). */
export interface UsageOfDay {
  date: string;
  valueMicros: bigint;
}

/**
 * A usage line recognized on the days its usage happened: each day of [start, end) its share of `micros` in
 * proportion to the day's units (micros × day units / cycle units, whatever the tiers: a line's price is not split by
 * tier per day), by the cumulative rounding of EVEN lines with units in place of days (after the days up to d, round(
 * micros × their units / all units) to the minor unit; after the last, exactly `micros`). 10.00 over days of 100, 200
 * and 700 units: 1.00, 2.00, 7.00; over three days of 1 unit: 3.33, 3.34 (6.67 − 3.33), 3.33. No usage to weigh by
 * (none in the cycle, or a day below 0: a correction) recognizes it evenly over the cycle instead.
 */
export function usageDaysRecognition(
  line: { start: Date; end: Date; micros: number },
  usage: readonly UsageOfDay[],
  currency: string,
): RecognitionLine {
  const inCycle = usage
    .map(({ date, valueMicros }) => ({ day: new Date(`${date}T00:00:00.000Z`), units: valueMicros }))
    .filter(({ day }) => day.getTime() >= utcDay(line.start) * DAY_MS && day.getTime() < line.end.getTime())
    .sort((a, b) => a.day.getTime() - b.day.getTime());
  const whole = inCycle.reduce((sum, { units }) => sum + units, 0n);
  if (whole <= 0n || inCycle.some(({ units }) => units < 0n)) return { mode: "EVEN", ...line };
  let done = 0n;
  let recognized = 0;
  const days: { day: Date; micros: number }[] = [];
  for (const { day, units } of inCycle) {
    if (units === 0n) continue;
    done += units;
    const after = cumulativeShare(line.micros, done, whole, currency);
    if (after !== recognized) days.push({ day, micros: after - recognized });
    recognized = after;
  }
  return { mode: "USAGE_DAYS", ...line, days };
}

export interface RevenuePeriod {
  start: Date;
  end: Date;
  billed: number;
  recognized: number;
  deferred: number;
}

/** The periods of [from, to): UTC days, or calendar months (the first and last cut at from and to). */
export function periodsOf(from: Date, to: Date, interval: "DAY" | "MONTH"): { start: Date; end: Date }[] {
  const periods: { start: Date; end: Date }[] = [];
  let start = from;
  while (start.getTime() < to.getTime()) {
    const next =
      interval === "DAY"
        ? new Date((utcDay(start) + 1) * DAY_MS)
        : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
    const end = next.getTime() < to.getTime() ? next : to;
    periods.push({ start, end });
    start = end;
  }
  return periods;
}

/**
 * Per period: `billed` (lines of the schedules billed in it), `recognized` (what lines recognized in it, from the
 * days that began in it), `deferred` at its end (billed by then, not yet recognized by then). Every schedule whose
 * lines end after `from` or that was billed in [from, to) must be given; others change nothing.
 */
export function revenueOf(
  schedules: readonly RecognitionSchedule[],
  periods: readonly { start: Date; end: Date }[],
): RevenuePeriod[] {
  return periods.map(({ start, end }) => {
    let billed = 0;
    let recognized = 0;
    let deferred = 0;
    for (const { billedAt, currency, lines } of schedules) {
      const billedInPeriod = billedAt.getTime() >= start.getTime() && billedAt.getTime() < end.getTime();
      const billedByEnd = billedAt.getTime() < end.getTime();
      for (const line of lines) {
        if (billedInPeriod) billed += line.micros;
        const atEnd = recognizedBefore(line, end, currency);
        recognized += atEnd - recognizedBefore(line, start, currency);
        if (billedByEnd) deferred += line.micros - atEnd;
      }
    }
    return { start, end, billed, recognized, deferred };
  });
}

/** A line's revenue: its total less the tax added (exclusive) and included (inclusive). Tax is never revenue. */
export const revenueMicrosOf = (breakdown: { total: number; tax: number; taxInclusive?: number | undefined }) =>
  breakdown.total - breakdown.tax - (breakdown.taxInclusive ?? 0);

/** A finalized invoice's line, as its recognition reads it. */
export interface RecognizedLine {
  kind: string;
  catalogProductId?: string | undefined;
  revenueBreakdown: { total: number; tax: number; taxInclusive?: number | undefined };
}

/** Whether a line is recognized on the days of its meter's usage: a USAGE line of a meter. */
export const isRecognizedByUsage = (line: RecognizedLine) =>
  line.kind === "USAGE" && line.catalogProductId !== undefined && revenueMicrosOf(line.revenueBreakdown) !== 0;

/**
 * The recognition of a finalized invoice's lines over its cycle: a ONE_TIME line on the cycle's first day, a USAGE
 * line on the days of its meter's usage in the cycle (`usageOf` its meter: usageDaysRecognition), every other line
 * evenly over the cycle's days. Lines of no revenue are left out.
 */
export function invoiceRecognition(
  lines: readonly RecognizedLine[],
  cycle: { start: Date; end: Date },
  currency: string,
  usageOf: (meter: string) => readonly UsageOfDay[] = () => [],
): RecognitionLine[] {
  return lines.flatMap((line): RecognitionLine[] => {
    const micros = revenueMicrosOf(line.revenueBreakdown);
    if (micros === 0) return [];
    if (line.kind === "ONE_TIME")
      return [{ mode: "ON_DAY", start: cycle.start, end: new Date((utcDay(cycle.start) + 1) * DAY_MS), micros }];
    if (isRecognizedByUsage(line))
      return [usageDaysRecognition({ ...cycle, micros }, usageOf(line.catalogProductId as string), currency)];
    return [{ mode: "EVEN", ...cycle, micros }];
  });
}

/**
 * An OFFSET credit note's reversal on its day: the note's share of the invoice's revenue (the note less its tax
 * share), round(offset × revenue / total) to the minor unit, negative. A CREDITS note reverses nothing on its day:
 * the credits it grants lower the revenue of the invoices they pay, as every credit does.
 */
export function creditNoteReversal(
  offset: number,
  invoice: { revenue: number; total: number },
  at: Date,
  currency: string,
): RecognitionLine[] {
  if (offset === 0 || invoice.total === 0) return [];
  const share = roundToMinorUnit(BigInt(offset) * BigInt(invoice.revenue), BigInt(invoice.total), currency);
  if (share === 0) return [];
  return [{ mode: "ON_DAY", start: at, end: new Date((utcDay(at) + 1) * DAY_MS), micros: -share }];
}

/** What the open cycles would bill as of now (services/billing/unbilled.ts), as recognition lines. */
export interface Unbilled {
  lines: RecognitionLine[];
  /** Contracts priced. */
  contracts: number;
  /** Whether live contracts were left unpriced (past the cap or the time budget). */
  truncated: boolean;
}

/**
 * Per period, what unbilled lines (services/billing/unbilled.ts) recognized in it up to `now`: their days begun in
 * the period and before `now`, with the same cumulative rounding (a period wholly after `now` has none).
 */
export function unbilledOf(
  lines: readonly RecognitionLine[],
  periods: readonly { start: Date; end: Date }[],
  now: Date,
  currency: string,
): number[] {
  const cut = (at: Date) => (at.getTime() < now.getTime() ? at : now);
  return periods.map(({ start, end }) =>
    lines.reduce(
      (sum, line) => sum + recognizedBefore(line, cut(end), currency) - recognizedBefore(line, cut(start), currency),
      0,
    ),
  );
}
