import { DAY_MS } from "./cycles.js";

/** `at` moved on by `months` calendar months, on the same day (the month's last when it has fewer days), UTC. */
function addMonths(at: Date, months: number): Date {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const moved = new Date(at);
  moved.setUTCFullYear(year, month, Math.min(at.getUTCDate(), lastDay));
  return moved;
}

/**
 * Late usage after a contract's last invoice (issue 45): the moments a billing run looks for it, as the contract's
 * next invoices would have been made had it not ended — a calendar month apart from its last cycle's ready moment,
 * while one may still adjust its last invoice (`lastReadyAt` + the draft period + the account's `windowDays`).
 * `due`: the latest look in [from, at] (what the run at `at` does, once its schedule reached `from`); `next`: the first
 * after `at`, undefined when none is left. Example: the last cycle (March) ready Apr 1, no draft period, 35 days →
 * looks May 1 only (Jun 1 is past May 6); a run at May 3 from Apr 1 → due May 1, next none.
 */
export function lateLooksAfterEnd(
  lastReadyAt: Date,
  window: { draftMs: number; windowDays: number },
  from: Date,
  at: Date,
): { due?: Date; next?: Date } {
  const windowEnd = lastReadyAt.getTime() + window.draftMs + window.windowDays * DAY_MS;
  let due: Date | undefined;
  for (let months = 1; ; months += 1) {
    const look = addMonths(lastReadyAt, months);
    if (look.getTime() > windowEnd) return due ? { due } : {};
    if (look > at) return { ...(due && { due }), next: look };
    if (look >= from) due = look;
  }
}
