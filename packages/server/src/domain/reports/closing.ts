import { addMicros, ZERO_MICROS } from "../money/micros.js";
import type { OpenBalance } from "./receivables.js";

/**
 * Monthly closings of the reports (docs/decisions.md, "Closed months"): a month's figures are kept once it has
 * ended, summed from the entries recorded before the closing's cut; a report reads the closed months of its window
 * plus what the ledger holds beyond them (the open month, partial months at its edges, late postings).
 */

/** The first instant (UTC) of the month of `at`. */
export const monthOf = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));

/** The first instant of the month after the one starting at `month`. */
export const monthAfter = (month: Date) => new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));

/** Customers' balances by due date added up, zeros left out (a closing's, then what came after it). */
export function mergeBalances(...parts: readonly (readonly OpenBalance[])[]): OpenBalance[] {
  const byKey = new Map<string, OpenBalance>();
  for (const part of parts)
    for (const { customerId, dueDate, micros } of part) {
      const key = `${customerId}\u0000${dueDate.getTime()}`;
      const seen = byKey.get(key);
      byKey.set(key, { customerId, dueDate, micros: addMicros(seen?.micros ?? ZERO_MICROS, micros) });
    }
  return [...byKey.values()].filter(({ micros }) => micros !== 0);
}

/**
 * The periods of a report split by what serves them: `closed[i]` the closing of period i when it is exactly a closed
 * month (from the month's first instant to the next's), and `runs` the stretches of consecutive periods left, each
 * read from the ledger over [its first start, its last end).
 */
export function splitByClosings<C extends { month: Date; end: Date }>(
  periods: readonly { start: Date; end: Date }[],
  closings: readonly C[],
): { closed: (C | undefined)[]; runs: { from: number; to: number }[] } {
  const byMonth = new Map(closings.map((closing) => [closing.month.getTime(), closing]));
  const closed = periods.map(({ start, end }) => {
    const closing = byMonth.get(start.getTime());
    return closing && closing.end.getTime() === end.getTime() ? closing : undefined;
  });
  const runs: { from: number; to: number }[] = [];
  closed.forEach((closing, index) => {
    if (closing) return;
    const last = runs.at(-1);
    if (last && last.to === index) last.to = index + 1;
    else runs.push({ from: index, to: index + 1 });
  });
  return { closed, runs };
}
