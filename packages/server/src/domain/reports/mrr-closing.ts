import { type MrrCurve, type MrrMovementKind, type MrrPeriod, type MrrUsage, mrrOf } from "./mrr.js";

/**
 * MRR's closed months (docs/decisions.md, "Closed months"): a month's closing is the month as an MRR period from the
 * ledger's entries recorded before its cut; a report adds what was recorded since. Every figure of a period is a sum
 * over contracts (mrrOf), so a contract with an entry recorded since the cut is taken out as the closing saw it and
 * put back as the ledger has it now.
 */

/** MRR ledger entries as read, with when each was recorded (absent: before `recordedAt` existed, so before any cut). */
export interface MrrLedgerEntries {
  curves: (MrrCurve & { recordedAt?: Date })[];
  usages: (MrrUsage & { invoiceId: string; voided: boolean; recordedAt?: Date })[];
}

const KINDS: MrrMovementKind[] = ["new", "expansion", "contraction", "churn", "reactivation"];

/**
 * What mrrOf reads from the entries recorded before `cut` (all of them without one): the curves, and the usages of
 * invoices whose void is not among those entries (a void's entry cancels its invoice's usage).
 */
export function recordedBefore(entries: MrrLedgerEntries, cut?: Date): { curves: MrrCurve[]; usages: MrrUsage[] } {
  const before = ({ recordedAt }: { recordedAt?: Date }) => !cut || !recordedAt || recordedAt < cut;
  const curves = entries.curves.filter(before).map(({ recordedAt: _, ...curve }) => curve);
  const usages = entries.usages.filter(before);
  const voided = new Set(usages.filter((usage) => usage.voided).map((usage) => usage.invoiceId));
  return {
    curves,
    usages: usages
      .filter((usage) => !usage.voided && !voided.has(usage.invoiceId))
      .map(({ contractId, cycleEnd, micros }) => ({ contractId, cycleEnd, micros })),
  };
}

/** The MRR at a period's start: its MRR less its movements (opening + Σ movements = mrr). */
export const openingOf = (period: Omit<MrrPeriod, "start" | "end">) =>
  KINDS.reduce((opening, kind) => opening - period.movements[kind].amount, period.mrr);

/**
 * A closed month with what was recorded since its cut: `late` holds every entry (recorded whenever) of the contracts
 * with one recorded since (the cuts of the window's closings), their usages of the month and the 62 days before it.
 * Those contracts' share as the closing summed it is taken out, their share now put in, and each movement's
 * contracts kept in contract order, as mrrOf lists them.
 */
export function withLateEntries(
  closed: Omit<MrrPeriod, "start" | "end">,
  period: { start: Date; end: Date },
  cut: Date,
  late: MrrLedgerEntries,
): MrrPeriod {
  const lateIds = new Set([...late.curves, ...late.usages].map(({ contractId }) => contractId));
  if (lateIds.size === 0) return { ...period, ...closed };
  const shareOf = (cutAt?: Date) => {
    const { curves, usages } = recordedBefore(late, cutAt);
    return mrrOf(curves, usages, [period]).periods[0];
  };
  const [then, now] = [shareOf(cut), shareOf()];
  const adjust = (field: "recurring" | "usage" | "mrr") => closed[field] - (then?.[field] ?? 0) + (now?.[field] ?? 0);
  const movements = Object.fromEntries(
    KINDS.map((kind) => {
      const kept = closed.movements[kind].contracts.filter(({ contractId }) => !lateIds.has(contractId));
      const contracts = [...kept, ...(now?.movements[kind].contracts ?? [])].sort((a, b) =>
        a.contractId < b.contractId ? -1 : 1,
      );
      const amount =
        closed.movements[kind].amount - (then?.movements[kind].amount ?? 0) + (now?.movements[kind].amount ?? 0);
      return [kind, { amount, contracts }];
    }),
  ) as MrrPeriod["movements"];
  return { ...period, recurring: adjust("recurring"), usage: adjust("usage"), mrr: adjust("mrr"), movements };
}
