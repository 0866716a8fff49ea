import { type MeterAggregation, MICROS } from "@billing/shared";

export interface UsageDay {
  date: string;
  valueMicros: bigint;
  source: "EVENTS" | "MEASUREMENT";
}

export interface UsageTotal {
  valueMicros: bigint;
  days: UsageDay[];
}

/** How two values of the same meter combine, within a day and across days: added, the larger, or the later. */
const combine: Record<Exclude<MeterAggregation, "UNIQUE_COUNT">, (earlier: bigint, later: bigint) => bigint> = {
  COUNT: (earlier, later) => earlier + later,
  SUM: (earlier, later) => earlier + later,
  // biome-ignore lint/complexity/useMathMinMax: these are bigints, which Math.max does not take
  MAX: (earlier, later) => (later > earlier ? later : earlier),
  LATEST: (_earlier, later) => later,
};

/** A range of UTC days ("YYYY-MM-DD"), `toDayExclusive` excluded. */
export interface DayRange {
  fromDay: string;
  toDayExclusive: string;
}

/** Days in order, `days` of them before `day`: where a range's days start or end in a sorted list (binary search). */
function daysBefore(days: readonly UsageDay[], day: string): number {
  let low = 0;
  let high = days.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((days[middle] as UsageDay).date < day) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * A period's usage read once, day by day: its value over any range of its days, found by binary search in its sorted
 * days, so that each range costs its own days (a simulation reads a meter over all its cycles once and answers each
 * cycle from it). Without a range, the whole period.
 */
export interface UsageSpan {
  over(range?: DayRange): UsageTotal;
}

/**
 * A period's usage, fed counted events in time order, one at a time (memory grows with days, not events; only
 * UNIQUE_COUNT keeps its distinct values). Per day, a measurement replaces the day's events; the period then
 * combines its days as events combine within a day (added, largest, last), except UNIQUE_COUNT, whose period
 * value counts distinct values over the whole period (it has no measurements).
 */
export function usageAccumulator(aggregation: MeterAggregation) {
  const eventDays = new Map<string, bigint>();
  const distinct = new Map<string, Set<string>>();
  /** The period's days, once all are fed; `measurements` maps days ("YYYY-MM-DD") to micro-units. */
  const span = (measurements: Map<string, bigint>): UsageSpan => {
    const days: UsageDay[] = [
      ...[...eventDays]
        .filter(([date]) => !measurements.has(date))
        .map(([date, valueMicros]) => ({ date, valueMicros, source: "EVENTS" as const })),
      ...[...measurements].map(([date, valueMicros]) => ({ date, valueMicros, source: "MEASUREMENT" as const })),
    ].sort((a, b) => (a.date < b.date ? -1 : 1));
    return {
      over(range) {
        const within = range
          ? days.slice(daysBefore(days, range.fromDay), daysBefore(days, range.toDayExclusive))
          : days;
        if (aggregation === "UNIQUE_COUNT") {
          const all = new Set(within.flatMap(({ date }) => [...(distinct.get(date) ?? [])]));
          return { valueMicros: BigInt(all.size) * MICROS, days: within };
        }
        const valueMicros = within.reduce<bigint | undefined>(
          (total, day) => (total === undefined ? day.valueMicros : combine[aggregation](total, day.valueMicros)),
          undefined,
        );
        return { valueMicros: valueMicros ?? 0n, days: within };
      },
    };
  };
  return {
    /** One counted event: its UTC day, and the meter's reading (micro-units, or a value to count once). */
    add(date: string, value: bigint | string) {
      if (aggregation === "UNIQUE_COUNT") {
        const values = distinct.get(date) ?? new Set<string>();
        distinct.set(date, values.add(String(value)));
        eventDays.set(date, BigInt(values.size) * MICROS);
        return;
      }
      const before = eventDays.get(date);
      const reading = value as bigint;
      eventDays.set(date, before === undefined ? reading : combine[aggregation](before, reading));
    },

    span,

    /** The period's value and its days; `measurements` maps days ("YYYY-MM-DD") to micro-units. */
    total: (measurements: Map<string, bigint>): UsageTotal => span(measurements).over(),
  };
}
