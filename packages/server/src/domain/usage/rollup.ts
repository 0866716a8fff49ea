import { MICROS } from "@billing/shared";
import { decimalMicros, type MeterRule } from "./read-event.js";

/** A property whose value is not a decimal number: kept as it is, so that filters and UNIQUE_COUNT can read it. */
export interface Dimension {
  key: string;
  value: string;
}

/**
 * A property whose value is a decimal number, over the events of a group that carry it: what SUM, MAX and LATEST
 * read. `latestAt`/`latestId` order events as the raw read does (timestamp, then event id).
 */
export interface Measure {
  key: string;
  events: number;
  sumMicros: bigint;
  maxMicros: bigint;
  latestAt: Date;
  latestId: string;
  latestMicros: bigint;
}

/** The events of one (name, alias, day) whose kept non-decimal properties (see `dimensionKeysOf`) are all equal. */
export interface RollupGroup {
  /** Sorted by key: the group's identity. */
  dimensions: Dimension[];
  events: number;
  /** Sorted by key. */
  measures: Measure[];
}

/** What a rollup summarizes of one stored event. */
export interface RolledEvent {
  id: string;
  timestamp: Date;
  data: Record<string, string>;
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const groupIdentity = (group: RollupGroup) => JSON.stringify(group.dimensions.map(({ key, value }) => [key, value]));
const isLater = (a: Pick<Measure, "latestAt" | "latestId">, b: Pick<Measure, "latestAt" | "latestId">) =>
  a.latestAt.getTime() > b.latestAt.getTime() ||
  (a.latestAt.getTime() === b.latestAt.getTime() && a.latestId > b.latestId);

/**
 * The non-decimal properties a rollup of one event name keeps: those its meters filter on or count distinct values
 * of. Any other text property (a request id, a trace id) is dropped, or every event would make a group of its own.
 */
export function dimensionKeysOf(meters: MeterRule[]): string[] {
  const keys = new Set<string>();
  for (const meter of meters) {
    for (const { property } of meter.filters ?? []) keys.add(property);
    if (meter.aggregation === "UNIQUE_COUNT" && meter.valueProperty !== undefined) keys.add(meter.valueProperty);
  }
  return [...keys].sort();
}

function groupOfEvent({ id, timestamp, data }: RolledEvent, dimensionKeys: ReadonlySet<string>): RollupGroup {
  const dimensions: Dimension[] = [];
  const measures: Measure[] = [];
  for (const [key, value] of Object.entries(data)) {
    const micros = decimalMicros(value);
    if (micros === undefined) {
      if (dimensionKeys.has(key)) dimensions.push({ key, value });
    } else
      measures.push({
        key,
        events: 1,
        sumMicros: micros,
        maxMicros: micros,
        latestAt: timestamp,
        latestId: id,
        latestMicros: micros,
      });
  }
  return { dimensions: dimensions.sort(byKey), events: 1, measures: measures.sort(byKey) };
}

function mergeMeasure(a: Measure, b: Measure): Measure {
  const later = isLater(b, a) ? b : a;
  return {
    key: a.key,
    events: a.events + b.events,
    sumMicros: a.sumMicros + b.sumMicros,
    // biome-ignore lint/complexity/useMathMinMax: these are bigints, which Math.max does not take
    maxMicros: b.maxMicros > a.maxMicros ? b.maxMicros : a.maxMicros,
    latestAt: later.latestAt,
    latestId: later.latestId,
    latestMicros: later.latestMicros,
  };
}

function mergeGroup(a: RollupGroup, b: RollupGroup): RollupGroup {
  const measures = new Map(a.measures.map((measure) => [measure.key, measure]));
  for (const measure of b.measures) {
    const earlier = measures.get(measure.key);
    measures.set(measure.key, earlier ? mergeMeasure(earlier, measure) : measure);
  }
  return { dimensions: a.dimensions, events: a.events + b.events, measures: [...measures.values()].sort(byKey) };
}

/** Groups merged by identity: associative and commutative, so partials merge in any order to the same day. */
export function mergeGroups(...lists: RollupGroup[][]): RollupGroup[] {
  const merged = new Map<string, RollupGroup>();
  for (const group of lists.flat()) {
    const identity = groupIdentity(group);
    const earlier = merged.get(identity);
    merged.set(identity, earlier ? mergeGroup(earlier, group) : group);
  }
  return [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}

/** The groups of events of one (name, alias, day), keeping `dimensionKeys`: what one batch writes as its partial. */
export function summarizeEvents(events: RolledEvent[], dimensionKeys: string[]): RollupGroup[] {
  const kept = new Set(dimensionKeys);
  return mergeGroups(events.map((event) => groupOfEvent(event, kept)));
}

/**
 * Rollups that kept different dimension keys (meters came and went between them), merged over the keys all of them
 * kept: the other dimensions are dropped before merging, so groups stay equal by identity. `undefined` keys: every
 * non-decimal property was kept.
 */
export function mergeRollups(rollups: { dimensionKeys?: string[] | undefined; groups: RollupGroup[] }[]) {
  const lists = rollups.map(({ dimensionKeys }) => dimensionKeys).filter((keys) => keys !== undefined);
  const dimensionKeys = lists.length === 0 ? undefined : lists.reduce((a, b) => a.filter((key) => b.includes(key)));
  const kept = dimensionKeys && new Set(dimensionKeys);
  const groupsOf = ({ groups }: { groups: RollupGroup[] }) =>
    kept
      ? groups.map((group) => ({ ...group, dimensions: group.dimensions.filter(({ key }) => kept.has(key)) }))
      : groups;
  return { dimensionKeys, groups: mergeGroups(...rollups.map(groupsOf)) };
}

/**
 * What a meter reads from one day's rollups (every alias of the customer, merged by `mergeRollups`): the values to
 * feed the period's accumulator, or `needsEvents` when the day's rollups cannot answer the meter, so that day is read
 * from its events: a property the meter filters on (or counts distinct values of) was not kept by some rollup of the
 * day (written before a meter needed it), or was sent as a decimal number by some event (groups keep only sums).
 */
export type DayReading = { needsEvents: true } | { needsEvents: false; values: (bigint | string)[] };

export function readRollupDay(
  meter: MeterRule,
  { dimensionKeys, groups }: { dimensionKeys?: string[] | undefined; groups: RollupGroup[] },
): DayReading {
  const filters = meter.filters ?? [];
  const readAsText = dimensionKeysOf([meter]);
  if (dimensionKeys && !readAsText.every((key) => dimensionKeys.includes(key))) return { needsEvents: true };
  if (groups.some((group) => group.measures.some(({ key }) => readAsText.includes(key)))) return { needsEvents: true };

  const dimensionOf = (group: RollupGroup, key: string) => group.dimensions.find((dimension) => dimension.key === key);
  const counted = groups.filter((group) =>
    filters.every(({ property, in: allowed }) => {
      const dimension = dimensionOf(group, property);
      return dimension !== undefined && allowed.includes(dimension.value);
    }),
  );
  if (meter.aggregation === "COUNT") {
    const events = counted.reduce((total, group) => total + group.events, 0);
    return { needsEvents: false, values: events > 0 ? [BigInt(events) * MICROS] : [] };
  }
  const property = meter.valueProperty;
  if (property === undefined) return { needsEvents: false, values: [] };
  if (meter.aggregation === "UNIQUE_COUNT") {
    const values = counted.flatMap((group) => dimensionOf(group, property)?.value ?? []);
    return { needsEvents: false, values: [...new Set(values)] };
  }
  const measures = counted.flatMap((group) => group.measures.filter(({ key }) => key === property));
  if (measures.length === 0) return { needsEvents: false, values: [] };
  const day = measures.reduce(mergeMeasure);
  const value = { SUM: day.sumMicros, MAX: day.maxMicros, LATEST: day.latestMicros }[meter.aggregation];
  return { needsEvents: false, values: [value] };
}
