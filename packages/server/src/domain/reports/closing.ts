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

/**
 * Rows (a customer's balance by due date, a contract's MRR movement) a closing's document holds at most: a row is
 * about 100 bytes, so a part stays near 0.5 MB, far under MongoDB's 16 MB, whatever the number of customers.
 */
export const ROWS_PER_CLOSING_PART = 5_000;

/** A closing's rows in parts of at most `maxRows`, in order; one empty part when there are none. */
export function partsOf<T>(rows: readonly T[], maxRows = ROWS_PER_CLOSING_PART): T[][] {
  if (!Number.isInteger(maxRows) || maxRows < 1)
    throw new Error(`rows per part must be a positive integer: ${maxRows}`);
  const parts: T[][] = [];
  for (let start = 0; start < rows.length; start += maxRows) parts.push(rows.slice(start, start + maxRows));
  return parts.length > 0 ? parts : [[]];
}

/** A stored part of a closing: which of how many, and the cut its figures were summed at. */
export interface ClosingPart {
  part: number;
  parts: number;
  cut: Date;
}

/**
 * The parts of one closing in order when every one is there and all were summed at the same cut (the first part's:
 * the one that won decides), else undefined: a closing is used only once whole.
 */
export function wholeClosing<P extends ClosingPart>(parts: readonly P[]): P[] | undefined {
  const ordered = [...parts].sort((a, b) => a.part - b.part);
  const count = ordered[0]?.parts;
  const cut = ordered[0]?.cut.getTime();
  if (count === undefined || ordered.length !== count) return undefined;
  return ordered.every((part, index) => part.part === index && part.parts === count && part.cut.getTime() === cut)
    ? ordered
    : undefined;
}
