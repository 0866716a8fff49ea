import type { EventIngestResult, EventInput, Measurement, MeasurementCreate } from "@billing/shared";
import { mayBillThresholds, testClockOf } from "../billing-clock.js";
import { startOfUtcDay } from "../domain/billing/cycles.js";
import { badRequest } from "../domain/errors.js";
import { afterClock, dayAfterClock } from "../domain/test-clock.js";
import { usageChanged } from "./alerts/trigger.js";
import type { CallScope } from "./call-scope.js";

/** The distinct UTC days (their midnights) of some instants: the periods a change of usage may have crossed in. */
const daysOf = (instants: Date[]) =>
  [...new Set(instants.map((at) => startOfUtcDay(at).getTime()))].map((time) => new Date(time));

/** A test account's usage cannot have happened after its clock's time (400 naming each such field). */
export function refuseAfterClock(clockAt: Date | undefined, timestamps: string[], pathOf: (index: number) => string) {
  const late = clockAt ? afterClock(timestamps, clockAt) : [];
  if (!clockAt || late.length === 0) return;
  throw badRequest(
    `Usage after the test clock's time (${clockAt.toISOString()}) cannot have happened yet: advance the clock first`,
    late.map((index) => ({ path: pathOf(index), message: `is after the test clock's time ${clockAt.toISOString()}` })),
  );
}

/**
 * Stores a batch of events, then has the alerts on their meters evaluated after the response. A test account's
 * events may not be later than its clock's time (400, the batch refused whole). `backfillId`: a backfill's step stores
 * them (each event names it).
 */
export async function ingestEvents({ repositories, accountId }: CallScope, events: EventInput[], backfillId?: string) {
  const testClockAt = testClockOf(accountId);
  refuseAfterClock(
    testClockAt,
    events.map((event) => event.timestamp),
    (index) => `events.${index}.timestamp`,
  );
  const result: EventIngestResult = await repositories.events.ingest(accountId, events, backfillId);
  usageChanged(repositories, {
    accountId,
    ...(testClockAt && { testClockAt }),
    thresholds: mayBillThresholds(accountId),
    kind: "events",
    aliases: [...new Set(events.map((event) => event.customerAlias))],
    eventNames: [...new Set(events.map((event) => event.name))],
    instants: daysOf(events.map((event) => new Date(event.timestamp))),
  });
  return result;
}

/**
 * Records a day's measurement (the caller resolved its customer), then has the meter's alerts evaluated. A test
 * account's day must have begun by its clock's time (400).
 */
export async function recordMeasurement({ repositories, accountId }: CallScope, input: MeasurementCreate) {
  const testClockAt = testClockOf(accountId);
  if (testClockAt && dayAfterClock(input.usageDate, testClockAt)) {
    throw badRequest(`A day after the test clock's day (${testClockAt.toISOString()}) cannot be measured yet`, [
      { path: "usageDate", message: `begins after the test clock's time ${testClockAt.toISOString()}` },
    ]);
  }
  const measurement: Measurement = await repositories.measurements.record(accountId, input);
  const { year, month, day } = measurement.usageDate;
  usageChanged(repositories, {
    accountId,
    ...(testClockAt && { testClockAt }),
    thresholds: mayBillThresholds(accountId),
    kind: "measurement",
    customerId: measurement.customerId,
    meterKey: measurement.meterId,
    instants: [new Date(Date.UTC(year, month - 1, day))],
  });
  return measurement;
}
