import { DAY_MS } from "@billing/shared";
import type { DayRange } from "./aggregate.js";

/** Where one meter's usage is read for one charge: the meter, and the days of the charge's usage period. */
export interface UsageWindow extends DayRange {
  meter: string;
}

/** The days of a range. */
export const daysOf = ({ fromDay, toDayExclusive }: DayRange) =>
  (Date.parse(toDayExclusive) - Date.parse(fromDay)) / DAY_MS;

/** What some windows read: every meter they name, each once, over the days they all cover. */
export interface UsageToRead extends DayRange {
  meters: string[];
}

/** The meters and days some usage windows read, or undefined when they read nothing. */
export function usageToRead(windows: readonly UsageWindow[]): UsageToRead | undefined {
  const [first, ...rest] = windows;
  if (!first) return undefined;
  let { fromDay, toDayExclusive } = first;
  for (const window of rest) {
    if (window.fromDay < fromDay) fromDay = window.fromDay;
    if (window.toDayExclusive > toDayExclusive) toDayExclusive = window.toDayExclusive;
  }
  return { fromDay, toDayExclusive, meters: [...new Set(windows.map(({ meter }) => meter))] };
}

/**
 * How much one usage read takes at most: 20,000 days of usage (meters × days × the customer's aliases: a few
 * documents each) and 100 meters (an `$in` of event names is one index scan per value).
 */
export const USAGE_READ_LIMITS = { daysPerRead: 20_000, metersPerRead: 100 };

/**
 * The meters read together, a read at a time: at most `daysPerRead` days of usage (meters × days × `aliases`, at least
 * 1: each alias has rollups of its own) and `metersPerRead` meters each, at least one meter. Few reads of bounded
 * size, instead of one per meter and window (on FerretDB each read scans its collection; on MongoDB each is a round
 * trip).
 */
export function meterReads(
  { meters, ...days }: UsageToRead,
  { daysPerRead, metersPerRead } = USAGE_READ_LIMITS,
  aliases = 1,
): string[][] {
  const daysPerMeter = Math.max(1, daysOf(days)) * Math.max(1, aliases);
  const size = Math.max(1, Math.min(metersPerRead, Math.floor(daysPerRead / daysPerMeter)));
  return Array.from({ length: Math.ceil(meters.length / size) }, (_, index) =>
    meters.slice(index * size, (index + 1) * size),
  );
}
