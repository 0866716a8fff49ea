import { MAX_ADVANCE_DAYS, MAX_ADVANCE_MS, type UsageDate } from "@billing/shared";

/**
 * Why an advance from the clock's `at` cannot go to `to`, for the `to` field; undefined when it can. Equal is an
 * advance that moves nothing and does what is due by the clock's time. Examples: from 2027-01-01, 2026-12-31 is
 * refused (back), 2029-01-01 is 731 days on (allowed: two years, a leap day included), 2029-01-02 is refused.
 */
export function advanceRefusal(at: Date, to: Date): string | undefined {
  if (to.getTime() < at.getTime()) return `must not be before the clock's time ${at.toISOString()}: it never goes back`;
  if (to.getTime() - at.getTime() > MAX_ADVANCE_MS)
    return `must be at most ${MAX_ADVANCE_DAYS} days after the clock's time ${at.toISOString()}`;
  return undefined;
}

/**
 * Where an advance from `after` towards `to` stops next: the earliest moment some work falls due strictly after
 * `after` and not after `to`; undefined when none does (the clock then moves to `to` with nothing to do). `due` holds
 * each step's next moment (undefined: none). Example: after Jan 1, to Apr 2, due [Feb 1, Mar 15, undefined] → Feb 1;
 * due [May 1] → undefined.
 */
export function nextMoment(due: readonly (Date | undefined)[], after: Date, to: Date): Date | undefined {
  let next: Date | undefined;
  for (const moment of due) {
    if (!moment || moment.getTime() <= after.getTime() || moment.getTime() > to.getTime()) continue;
    if (!next || moment.getTime() < next.getTime()) next = moment;
  }
  return next;
}

/** Whether some step has work due at or before `at` (left undone at the clock's time: done before it moves). */
export const dueBy = (due: readonly (Date | undefined)[], at: Date) =>
  due.some((moment) => moment !== undefined && moment.getTime() <= at.getTime());

/** The positions of the timestamps later than the clock's time: usage a test account cannot have had yet. */
export const afterClock = (timestamps: readonly string[], clockAt: Date): number[] =>
  timestamps.flatMap((timestamp, index) => (Date.parse(timestamp) > clockAt.getTime() ? [index] : []));

/** Whether a measurement's day has not begun by the clock's time (a day that has begun may be measured). */
export const dayAfterClock = ({ year, month, day }: UsageDate, clockAt: Date) =>
  Date.UTC(year, month - 1, day) > clockAt.getTime();

/** An advance's hold on its account's clock, as the decision needs it. */
export interface StandingLease {
  generation: number;
  expiresAt: Date;
  releasedAt?: Date;
}

/**
 * The generation an advance takes, by the latest lease of the account: the next one when that lease was released or
 * has run out (its holder died), or when there is none (1); `held` while it is live. Of the advances taking the same
 * generation one insert wins, so two advances never hold a clock at once. Example: generation 3 released → 4;
 * generation 3 expiring at 12:00:00 is held at 11:59:59.999 and gives 4 at 12:00:00.
 */
export function leaseStep(latest: StandingLease | undefined, now: Date): number | "held" {
  if (!latest) return 1;
  if (latest.releasedAt || latest.expiresAt.getTime() <= now.getTime()) return latest.generation + 1;
  return "held";
}
