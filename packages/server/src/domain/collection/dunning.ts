import type { DunningPolicy } from "@billing/shared";

const DAY_MS = 86_400_000;

/** The moment of a step `day` days from the due date (negative: before it). */
export const stepMoment = (dueDate: Date, day: number): Date => new Date(dueDate.getTime() + day * DAY_MS);

export type DunningStepKind = "RETRY" | "REMINDER" | "FINAL";

/** One step of an invoice's chase: its kind and day (FINAL: the day of the last step). */
export interface DueStep {
  kind: DunningStepKind;
  day: number;
}

/** The day after which the final action is taken: the last of all steps (the due date itself when none). */
export const lastStepDay = (policy: DunningPolicy): number => Math.max(0, ...policy.retryDays, ...policy.reminderDays);

/** The latest day of `days` whose moment has come by `at`, or undefined. */
function latestPast(days: readonly number[], dueDate: Date, at: Date): number | undefined {
  const past = days.filter((day) => stepMoment(dueDate, day).getTime() <= at.getTime());
  return past.length === 0 ? undefined : Math.max(...past);
}

/**
 * The steps to take at `at` for an unpaid invoice due `dueDate`: of each kind, only the latest whose moment has come
 * (several already past, after a late start or a finalization after the due date, make one step), and only when it is
 * later than the latest of that kind already taken (`taken`: the latest day taken per kind). The final action follows
 * the last step, once. Retries only when the invoice can be charged (`chargeable`).
 */
export function stepsDue(
  policy: DunningPolicy,
  dueDate: Date,
  at: Date,
  taken: Partial<Record<DunningStepKind, number>>,
  chargeable: boolean,
): DueStep[] {
  const steps: DueStep[] = [];
  const reminder = latestPast(policy.reminderDays, dueDate, at);
  if (reminder !== undefined && (taken.REMINDER === undefined || reminder > taken.REMINDER))
    steps.push({ kind: "REMINDER", day: reminder });
  const retry = chargeable ? latestPast(policy.retryDays, dueDate, at) : undefined;
  if (retry !== undefined && (taken.RETRY === undefined || retry > taken.RETRY))
    steps.push({ kind: "RETRY", day: retry });
  const last = lastStepDay(policy);
  if (taken.FINAL === undefined && at.getTime() > stepMoment(dueDate, last).getTime())
    steps.push({ kind: "FINAL", day: last });
  return steps;
}

/**
 * The next moment after `after` at which a step of the chase falls due (the final action: just after the last
 * step's moment), or undefined when none is left.
 */
export function nextStepAt(policy: DunningPolicy, dueDate: Date, after: Date, chargeable: boolean): Date | undefined {
  const days = [...policy.reminderDays, ...(chargeable ? policy.retryDays : [])];
  const moments = days.map((day) => stepMoment(dueDate, day).getTime()).filter((moment) => moment > after.getTime());
  const final = stepMoment(dueDate, lastStepDay(policy)).getTime() + 1;
  if (final > after.getTime()) moments.push(final);
  return moments.length === 0 ? undefined : new Date(Math.min(...moments));
}
