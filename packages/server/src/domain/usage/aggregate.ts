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

/**
 * A period's usage, fed counted events in time order, one at a time (memory grows with days, not events; only
 * UNIQUE_COUNT keeps its distinct values). Per day, a measurement replaces the day's events; the period then
 * combines its days as events combine within a day (added, largest, last), except UNIQUE_COUNT, whose period
 * value counts distinct values over the whole period (it has no measurements).
 */
export function usageAccumulator(aggregation: MeterAggregation) {
  const eventDays = new Map<string, bigint>();
  const distinct = new Map<string, Set<string>>();
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

    /** The period's value and its days; `measurements` maps days ("YYYY-MM-DD") to micro-units. */
    total(measurements: Map<string, bigint>): UsageTotal {
      const days: UsageDay[] = [
        ...[...eventDays]
          .filter(([date]) => !measurements.has(date))
          .map(([date, valueMicros]) => ({ date, valueMicros, source: "EVENTS" as const })),
        ...[...measurements].map(([date, valueMicros]) => ({ date, valueMicros, source: "MEASUREMENT" as const })),
      ].sort((a, b) => (a.date < b.date ? -1 : 1));
      if (aggregation === "UNIQUE_COUNT") {
        const all = new Set([...distinct.values()].flatMap((values) => [...values]));
        return { valueMicros: BigInt(all.size) * MICROS, days };
      }
      const valueMicros = days.reduce<bigint | undefined>(
        (total, day) => (total === undefined ? day.valueMicros : combine[aggregation](total, day.valueMicros)),
        undefined,
      );
      return { valueMicros: valueMicros ?? 0n, days };
    },
  };
}
