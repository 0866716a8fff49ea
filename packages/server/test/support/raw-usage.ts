import { dayKey } from "../../src/domain/billing/cycles.js";
import { usageAccumulator } from "../../src/domain/usage/aggregate.js";
import { readEvent } from "../../src/domain/usage/read-event.js";
import type { Repositories } from "../../src/repositories/index.js";
import type { MeterUsage } from "../../src/services/usage.js";

const midnightOf = (day: string) => new Date(`${day}T00:00:00.000Z`);

/**
 * The reference usage read: every raw event of the customer's period, streamed in time order. This was `usageOf`
 * before rollups; the property test holds the rollup read to its answers.
 */
export async function rawUsageOf(
  repositories: Repositories,
  accountId: string,
  customerId: string,
  meterKey: string,
  fromDay: string,
  toDayExclusive: string,
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
  const events = repositories.events.ofCustomer(
    accountId,
    meter.eventName,
    aliases,
    midnightOf(fromDay),
    midnightOf(toDayExclusive),
  );
  for await (const { timestamp, data } of events) {
    const date = dayKey(timestamp);
    if (measured.has(date)) continue;
    const reading = readEvent(meter, data);
    if (reading.counted) accumulator.add(date, reading.value);
  }
  return {
    aggregation: meter.aggregation,
    ...accumulator.total(meter.aggregation === "UNIQUE_COUNT" ? new Map() : measured),
  };
}
