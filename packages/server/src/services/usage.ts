import { DAY_MS, type EventAttribution, type EventExplanation, type MeterAggregation } from "@billing/shared";
import { dayKey } from "../domain/billing/cycles.js";
import { finalSince } from "../domain/invoices/life.js";
import { type UsageDay, usageAccumulator } from "../domain/usage/aggregate.js";
import { readEvent } from "../domain/usage/read-event.js";
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

/**
 * A customer's usage of a meter over the UTC days [fromDay, toDayExclusive) ("YYYY-MM-DD"): what the billing
 * engine prices and `GET /usage` shows. Per day, a measurement replaces the day's events. A key that names no
 * meter reads its measurements only, summed. Reads the rollups of the meter's event name under the customer's
 * aliases (a few documents per alias and day, whatever the number of events), and the events of a day only when
 * its rollups cannot answer the meter (see readRollupDay), or of the whole period while events stored before
 * rollups existed are still being rolled up.
 */
export async function usageOf(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  meterKey: string,
  fromDay: string,
  toDayExclusive: string,
  /** Aborts when nobody waits for the answer any more: the events stop being read (usage only reads). */
  stop?: AbortSignal,
): Promise<MeterUsage> {
  const key = meterKey.trim();
  const [meter, customer, measured] = await Promise.all([
    repositories.meters.getByKey(accountId, key),
    repositories.customers.get(accountId, customerId),
    repositories.measurements.byDay(accountId, customerId, key, fromDay, toDayExclusive),
  ]);
  if (!meter) return { aggregation: "SUM", ...usageAccumulator("SUM").total(measured) };
  const accumulator = usageAccumulator(meter.aggregation);
  const aliases = customer ? await repositories.customers.eventAliasesOf(accountId, customer) : [];
  /** The meter's reading of the events of [from, to), day by day: days set by a measurement are skipped. */
  const countEvents = async (from: Date, to: Date) => {
    const events = repositories.events.ofCustomer(accountId, meter.eventName, aliases, from, to, stop);
    for await (const { timestamp, data } of events) {
      const date = dayKey(timestamp);
      if (measured.has(date)) continue;
      const event = readEvent(meter, data);
      if (event.counted) accumulator.add(date, event.value);
    }
  };
  if (!(await repositories.events.everyEventRolledUp())) {
    // Events stored before rollups existed (an upgrade) are not all rolled up yet: their rollups would miss some.
    await countEvents(midnightOf(fromDay), midnightOf(toDayExclusive));
  } else {
    const rolledUp = await repositories.usageRollups.groupsByDay(
      accountId,
      meter.eventName,
      aliases,
      fromDay,
      toDayExclusive,
    );
    for (const [date, rollup] of rolledUp) {
      if (measured.has(date)) continue;
      const reading = readRollupDay(meter, rollup);
      if (reading.needsEvents) await countEvents(midnightOf(date), midnightOf(dayAfter(date)));
      else for (const value of reading.values) accumulator.add(date, value);
    }
  }
  // UNIQUE_COUNT takes no measurements (they are refused); any stored under its key before the meter are ignored.
  return {
    aggregation: meter.aggregation,
    ...accumulator.total(meter.aggregation === "UNIQUE_COUNT" ? new Map() : measured),
  };
}

/** Why an event counts, or not, for each meter of its name: `GET /events/{eventId}`. */
export async function explainEvent(
  repositories: Repositories,
  accountId: string,
  eventId: string,
): Promise<EventExplanation | undefined> {
  const event = await repositories.events.get(accountId, eventId);
  if (!event) return undefined;
  const [customerId, meters] = await Promise.all([
    repositories.customers.attributedTo(accountId, event.customerAlias),
    repositories.meters.ofEventName(accountId, event.name),
  ]);
  if (meters.length === 0)
    return { event, attribution: { customerId: customerId ?? null, meters: [], reason: "NO_METER" } };
  const day = event.timestamp.slice(0, 10);
  const invoiced = customerId ? await repositories.invoices.meteredAt(accountId, customerId, midnightOf(day)) : [];
  const storedAt = new Date(event.createdAt);
  const finalBefore = invoiced.filter((invoice) => {
    const finalAt = finalSince(invoice);
    return finalAt !== null && finalAt < storedAt;
  });
  /** An invoice that priced the meter's usage of the event's day was final before the event was stored. */
  const invoicedBefore = (meterKey: string) => finalBefore.some((invoice) => invoice.meterKeys.includes(meterKey));
  const verdicts = await Promise.all(
    meters.map(async (meter): Promise<EventAttribution["meters"][number]> => {
      if (!customerId) return { key: meter.key, counted: false, reason: "NO_CUSTOMER" };
      const reading = readEvent(meter, event.data);
      if (!reading.counted) return { key: meter.key, counted: false, reason: reading.reason };
      if (meter.aggregation !== "UNIQUE_COUNT") {
        const measured = await repositories.measurements.byDay(accountId, customerId, meter.key, day, dayAfter(day));
        if (measured.size > 0) return { key: meter.key, counted: false, reason: "DAY_SET_BY_MEASUREMENT" };
      }
      if (invoicedBefore(meter.key)) return { key: meter.key, counted: false, reason: "AFTER_INVOICE" };
      return { key: meter.key, counted: true };
    }),
  );
  return { event, attribution: { customerId: customerId ?? null, meters: verdicts } };
}
