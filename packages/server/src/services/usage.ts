import {
  DAY_MS,
  DEFAULT_LATE_USAGE,
  type Event,
  type EventAttribution,
  type EventExplanation,
  type Meter,
  type MeterAggregation,
} from "@billing/shared";
import { dayKey } from "../domain/billing/cycles.js";
import { finalSince } from "../domain/invoices/life.js";
import { type UsageDay, type UsageSpan, usageAccumulator } from "../domain/usage/aggregate.js";
import { readEvent } from "../domain/usage/read-event.js";
import { daysOf, meterReads, USAGE_READ_LIMITS, type UsageWindow, usageToRead } from "../domain/usage/reads.js";
import { readRollupDay } from "../domain/usage/rollup.js";
import type { Repositories } from "../repositories/index.js";

const midnightOf = (day: string) => new Date(`${day}T00:00:00.000Z`);
const dayAfter = (day: string) => dayKey(new Date(midnightOf(day).getTime() + DAY_MS));

export interface MeterUsage {
  /** The meter's aggregation; SUM when the key names no meter (its measurements are summed, as before meters). */
  aggregation: MeterAggregation;
  /** Exact, in micro-units: a bigint, as a period's sum can pass 2^53. */
  valueMicros: bigint;
  days: UsageDay[];
}

/** A meter's usage read once over a period: its aggregation, and its value over any range of the period's days. */
export interface MeterUsageSpan extends UsageSpan {
  aggregation: MeterAggregation;
}

/** What the caller of a usage read has read already (a reservation: the customer's aliases and its meter). */
export interface KnownUsageFacts {
  /** The customer's event aliases (eventAliasesOf). */
  aliases?: string[];
  /** Meters by key: a read whose keys are all here reads no meter. */
  meters?: readonly Meter[];
}

/**
 * Reads a customer's usage: the customer and its aliases once (or as `known`), then any meters over any days. A
 * simulation reads all its meters at once over all its cycles through one reader (usageOf reads one meter over one
 * period).
 */
export function usageReader(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  /** Aborts when nobody waits for the answer any more: the events stop being read (usage only reads). */
  stop?: AbortSignal,
  known: KnownUsageFacts = {},
) {
  let aliasesRead: Promise<string[]> | undefined = known.aliases && Promise.resolve(known.aliases);
  const knownMeters = new Map(known.meters?.map((meter) => [meter.key, meter]));
  /** The meters of these keys: as known, or read. */
  const metersOf = async (keys: string[]): Promise<Map<string, Meter>> => {
    const found = keys.flatMap((key) => knownMeters.get(key) ?? []);
    if (found.length < keys.length) return repositories.meters.byKeys(accountId, keys);
    return new Map(found.map((meter) => [meter.key, meter]));
  };
  /** The aliases the customer's events are sent under, read once (see eventAliasesOf). */
  const aliases = () => {
    if (!aliasesRead) {
      aliasesRead = (async () => {
        const customer = await repositories.customers.get(accountId, customerId);
        return customer ? repositories.customers.eventAliasesOf(accountId, customer) : [];
      })();
      // Read beside the first meters; keys that name no meter never await it (its failure is not unhandled).
      aliasesRead.catch(() => undefined);
    }
    return aliasesRead;
  };

  /**
   * The customer's usage of each of these meters (keys, trimmed) over the UTC days [fromDay, toDayExclusive)
   * ("YYYY-MM-DD"), by key as given: what the billing engine prices and `GET /usage` shows. Per day, a measurement
   * replaces the day's events. A key that names no meter reads its measurements only, summed. Reads the meters, their
   * measurements and the rollups of their event names under the customer's aliases once for all of them (a few
   * documents per alias, name and day, whatever the number of events), and the events of a day only when its rollups
   * cannot answer a meter (see readRollupDay), or of the whole period while events stored before rollups existed are
   * still being rolled up.
   */
  async function readMany(
    meterKeys: readonly string[],
    fromDay: string,
    toDayExclusive: string,
  ): Promise<Map<string, MeterUsageSpan>> {
    const keys = [...new Set(meterKeys.map((key) => key.trim()))];
    const aliasesRead = aliases();
    const [meters, measuredByKey] = await Promise.all([
      metersOf(keys),
      repositories.measurements.byDayOfMeters(accountId, customerId, keys, fromDay, toDayExclusive),
    ]);
    const spans = new Map<string, MeterUsageSpan>();
    const measuredOf = (key: string) => measuredByKey.get(key) ?? new Map<string, bigint>();
    for (const key of keys) {
      if (!meters.has(key)) spans.set(key, { aggregation: "SUM", ...usageAccumulator("SUM").span(measuredOf(key)) });
    }
    const metered = [...meters.values()];
    if (metered.length > 0) {
      const eventAliases = await aliasesRead;
      // Events stored before rollups existed (an upgrade) are not all rolled up yet: their rollups would miss some.
      const rolledUp =
        (await repositories.events.everyEventRolledUp()) &&
        (await repositories.usageRollups.groupsByNameAndDay(
          accountId,
          [...new Set(metered.map((meter) => meter.eventName))],
          eventAliases,
          fromDay,
          toDayExclusive,
        ));
      for (const meter of metered) {
        const measured = measuredOf(meter.key);
        const accumulator = usageAccumulator(meter.aggregation);
        /** The meter's reading of the events of [from, to), day by day: days set by a measurement are skipped. */
        const countEvents = async (from: Date, to: Date) => {
          const events = repositories.events.ofCustomer(accountId, meter.eventName, eventAliases, from, to, stop);
          for await (const { timestamp, data } of events) {
            const date = dayKey(timestamp);
            if (measured.has(date)) continue;
            const event = readEvent(meter, data);
            if (event.counted) accumulator.add(date, event.value);
          }
        };
        if (!rolledUp) await countEvents(midnightOf(fromDay), midnightOf(toDayExclusive));
        else {
          for (const [date, rollup] of rolledUp.get(meter.eventName) ?? []) {
            if (measured.has(date)) continue;
            const reading = readRollupDay(meter, rollup);
            if (reading.needsEvents) await countEvents(midnightOf(date), midnightOf(dayAfter(date)));
            else for (const value of reading.values) accumulator.add(date, value);
          }
        }
        // UNIQUE_COUNT takes no measurements (they are refused); any stored under its key before the meter are ignored.
        spans.set(meter.key, {
          aggregation: meter.aggregation,
          ...accumulator.span(meter.aggregation === "UNIQUE_COUNT" ? new Map() : measured),
        });
      }
    }
    return new Map(meterKeys.map((key) => [key, spans.get(key.trim()) as MeterUsageSpan]));
  }

  return {
    aliases,
    readMany,
    /** One meter's usage over [fromDay, toDayExclusive): see readMany. */
    async read(meterKey: string, fromDay: string, toDayExclusive: string): Promise<MeterUsageSpan> {
      return (await readMany([meterKey], fromDay, toDayExclusive)).get(meterKey) as MeterUsageSpan;
    },
  };
}
export type UsageReader = ReturnType<typeof usageReader>;

/**
 * Each window's usage (its meter over its days): every meter read once over the days all the windows cover, several
 * meters a read (meterReads: one read for an invoice's meters, a few for a simulation's), one read at a time; each
 * read's days are let go once its windows have their values. `beforeRead` and `afterRead` (given the days of usage
 * just read) let a caller check and spend a budget between reads.
 */
export async function readUsageWindows(
  reader: UsageReader,
  windows: readonly UsageWindow[],
  { beforeRead, afterRead }: { beforeRead?: () => void; afterRead?: (usageDays: number) => Promise<void> } = {},
): Promise<Map<UsageWindow, bigint>> {
  const values = new Map<UsageWindow, bigint>();
  const toRead = usageToRead(windows);
  if (!toRead) return values;
  const windowsOf = new Map<string, UsageWindow[]>();
  for (const window of windows) {
    const ofMeter = windowsOf.get(window.meter);
    if (ofMeter) ofMeter.push(window);
    else windowsOf.set(window.meter, [window]);
  }
  for (const meters of meterReads(toRead, USAGE_READ_LIMITS, (await reader.aliases()).length)) {
    beforeRead?.();
    const usage = await reader.readMany(meters, toRead.fromDay, toRead.toDayExclusive);
    for (const meter of meters) {
      const span = usage.get(meter);
      for (const window of windowsOf.get(meter) ?? []) values.set(window, span?.over(window).valueMicros ?? 0n);
    }
    await afterRead?.(meters.length * daysOf(toRead));
  }
  return values;
}

/** A customer's usage of a meter over the UTC days [fromDay, toDayExclusive): see usageReader's `read`. */
export async function usageOf(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  meterKey: string,
  fromDay: string,
  toDayExclusive: string,
  stop?: AbortSignal,
): Promise<MeterUsage> {
  const span = await usageReader(repositories, accountId, customerId, stop).read(meterKey, fromDay, toDayExclusive);
  return { aggregation: span.aggregation, ...span.over() };
}

/** Why an event counts, or not, for each meter of its name: `GET /events/{eventId}`. */
export async function explainEvent(
  repositories: Repositories,
  accountId: string,
  eventId: string,
): Promise<EventExplanation | undefined> {
  const event = await repositories.events.get(accountId, eventId);
  if (!event) return undefined;
  if (event.voided) return voidedExplanation(repositories, accountId, event);
  const [customerId, meters] = await Promise.all([
    repositories.customers.attributedTo(accountId, event.customerAlias),
    repositories.meters.ofEventName(accountId, event.name),
  ]);
  if (meters.length === 0)
    return { event, attribution: { customerId: customerId ?? null, meters: [], reason: "NO_METER" } };
  const day = event.timestamp.slice(0, 10);
  const invoiced = customerId ? await repositories.invoices.meteredAt(accountId, customerId, midnightOf(day)) : [];
  // A restored event (a backfill's revert undid its void) counts again from its restore: late usage from then on.
  const storedAt = new Date(event.restored?.restoredAt ?? event.createdAt);
  const finalBefore = invoiced.filter((invoice) => {
    const finalAt = finalSince(invoice);
    return finalAt !== null && finalAt < storedAt;
  });
  /** The invoices that priced the meter's usage of the event's day and were final before the event was stored. */
  const invoicedBefore = (meterKey: string) => finalBefore.filter((invoice) => invoice.meterKeys.includes(meterKey));
  const verdicts = await Promise.all(
    meters.map(async (meter): Promise<EventAttribution["meters"][number]> => {
      if (!customerId) return { key: meter.key, counted: false, reason: "NO_CUSTOMER" };
      const reading = readEvent(meter, event.data);
      if (!reading.counted) return { key: meter.key, counted: false, reason: reading.reason };
      if (meter.aggregation !== "UNIQUE_COUNT") {
        const measured = await repositories.measurements.byDay(accountId, customerId, meter.key, day, dayAfter(day));
        if (measured.size > 0) return { key: meter.key, counted: false, reason: "DAY_SET_BY_MEASUREMENT" };
      }
      const originals = invoicedBefore(meter.key);
      if (originals.length === 0) return { key: meter.key, counted: true };
      const later = await laterLook(repositories, accountId, originals, storedAt);
      if (later?.adjustedBy) return { key: meter.key, counted: true, reason: "ADJUSTED", adjustedBy: later.adjustedBy };
      if (later?.afterWindow) return { key: meter.key, counted: false, reason: "AFTER_WINDOW" };
      return { key: meter.key, counted: false, reason: "AFTER_INVOICE" };
    }),
  );
  return { event, attribution: { customerId: customerId ?? null, meters: verdicts } };
}

/**
 * Late usage (issue 45), what the contract's later invoices did of an event stored at `storedAt` after `originals`:
 * `adjustedBy`, the finalized invoice whose LATE_USAGE line adjusts one of them and whose lines became final after
 * `storedAt` (so its repricing read the event); else `afterWindow` when such an invoice was made past the account's
 * window (its `finalizedAt` more than `windowDays` after the original's, on the runs' clock), unless IGNORE:
 * no run adjusts that original any more. It names the original invoice, not the product: an original of several
 * products adjusted for another product's late usage answers ADJUSTED too.
 */
async function laterLook(
  repositories: Repositories,
  accountId: string,
  originals: { id: string; contractId: string; finalizedAt: Date | null; createdAt: Date }[],
  storedAt: Date,
): Promise<{ adjustedBy?: string; afterWindow?: boolean } | undefined> {
  let afterWindow = false;
  let lateUsage: { policy: string; windowDays: number } | undefined;
  for (const original of originals) {
    const since = original.finalizedAt ?? original.createdAt;
    const later = await repositories.invoices.adjustable(accountId, original.contractId, since, MAX_ADJUSTING);
    const madeAfter = later.filter(({ life, finality }) => {
      const finalAt = finalSince(finality);
      return life.status === "FINALIZED" && finalAt !== null && finalAt > storedAt;
    });
    const adjusting = madeAfter.find(({ invoice }) =>
      invoice.lineItems.some((line) => line.kind === "LATE_USAGE" && line.adjusts?.invoiceId === original.id),
    );
    if (adjusting) return { adjustedBy: adjusting.invoice.id };
    if (madeAfter.length === 0) continue;
    lateUsage ??= (await repositories.accounts.get(accountId))?.lateUsage ?? DEFAULT_LATE_USAGE;
    const windowMs = lateUsage.windowDays * DAY_MS;
    afterWindow ||=
      lateUsage.policy !== "IGNORE" &&
      madeAfter.some(({ life }) => life.finalizedAt && life.finalizedAt.getTime() - since.getTime() > windowMs);
  }
  return afterWindow ? { afterWindow } : undefined;
}

/** The most later invoices of a contract explain reads per original invoice. */
const MAX_ADJUSTING = 100;

/** A voided event counts for no meter: VOIDED for each (`event.voided` says who voided it, when and why). */
async function voidedExplanation(repositories: Repositories, accountId: string, event: Event) {
  const [customerId, meters] = await Promise.all([
    repositories.customers.attributedTo(accountId, event.customerAlias),
    repositories.meters.ofEventName(accountId, event.name),
  ]);
  return {
    event,
    attribution: {
      customerId: customerId ?? null,
      meters: meters.map((meter) => ({ key: meter.key, counted: false, reason: "VOIDED" as const })),
      ...(meters.length === 0 && { reason: "NO_METER" as const }),
    },
  };
}
