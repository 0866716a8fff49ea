import { DAY_MS } from "@billing/shared";
import { microsPerMinorUnit } from "../money/currency.js";

/**
 * How one amount becomes revenue: `EVEN` evenly per UTC day over [start, end) (a flat, commitment or seat line over
 * its invoice's cycle), `ON_DAY` all on the UTC day of `start` (a one-time line; a credit note's reversal).
 */
export interface RecognitionLine {
  mode: "EVEN" | "ON_DAY";
  start: Date;
  end: Date;
  /** Revenue in micro-units: the line's total less its tax (exclusive and inclusive); negative for a reversal. */
  micros: number;
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
  const total = daysOf(line);
  const elapsed = Math.min(total, Math.max(0, Math.ceil(at.getTime() / DAY_MS) - utcDay(line.start)));
  if (line.mode === "ON_DAY") return at.getTime() > utcDay(line.start) * DAY_MS ? line.micros : 0;
  if (elapsed === total) return line.micros;
  if (elapsed === 0) return 0;
  const unit = BigInt(microsPerMinorUnit(currency));
  const scaled = BigInt(line.micros) * BigInt(elapsed);
  const per = BigInt(total) * unit;
  const sign = scaled < 0n ? -1n : 1n;
  const magnitude = sign * scaled;
  return Number(sign * ((2n * magnitude + per) / (2n * per)) * unit);
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

/**
 * The recognition of a finalized invoice's lines over its cycle: a ONE_TIME line on the cycle's first day, every
 * other line evenly over the cycle's days (usage too, for now: see docs/decisions.md). Lines of no revenue are left
 * out.
 */
export function invoiceRecognition(
  lines: readonly { kind: string; revenueBreakdown: { total: number; tax: number; taxInclusive?: number } }[],
  cycle: { start: Date; end: Date },
): RecognitionLine[] {
  return lines
    .map(({ kind, revenueBreakdown }) => ({
      mode: kind === "ONE_TIME" ? ("ON_DAY" as const) : ("EVEN" as const),
      start: cycle.start,
      end: kind === "ONE_TIME" ? new Date((utcDay(cycle.start) + 1) * DAY_MS) : cycle.end,
      micros: revenueMicrosOf(revenueBreakdown),
    }))
    .filter(({ micros }) => micros !== 0);
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
  const unit = BigInt(microsPerMinorUnit(currency));
  const numerator = BigInt(offset) * BigInt(invoice.revenue);
  const per = BigInt(invoice.total) * unit;
  const share = Number(((2n * numerator + per) / (2n * per)) * unit);
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
