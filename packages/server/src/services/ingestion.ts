import type { EventIngestResult, EventInput, Measurement, MeasurementCreate } from "@billing/shared";
import { startOfUtcDay } from "../domain/billing/cycles.js";
import { usageChanged } from "./alerts/trigger.js";
import type { CallScope } from "./call-scope.js";

/** The distinct UTC days (their midnights) of some instants: the periods a change of usage may have crossed in. */
const daysOf = (instants: Date[]) =>
  [...new Set(instants.map((at) => startOfUtcDay(at).getTime()))].map((time) => new Date(time));

/** Stores a batch of events, then has the alerts on their meters evaluated after the response. */
export async function ingestEvents({ repositories, accountId }: CallScope, events: EventInput[]) {
  const result: EventIngestResult = await repositories.events.ingest(accountId, events);
  usageChanged(repositories, {
    accountId,
    kind: "events",
    aliases: [...new Set(events.map((event) => event.customerAlias))],
    eventNames: [...new Set(events.map((event) => event.name))],
    instants: daysOf(events.map((event) => new Date(event.timestamp))),
  });
  return result;
}

/** Records a day's measurement (the caller resolved its customer), then has the meter's alerts evaluated. */
export async function recordMeasurement({ repositories, accountId }: CallScope, input: MeasurementCreate) {
  const measurement: Measurement = await repositories.measurements.record(accountId, input);
  const { year, month, day } = measurement.usageDate;
  usageChanged(repositories, {
    accountId,
    kind: "measurement",
    customerId: measurement.customerId,
    meterKey: measurement.meterId,
    instants: [new Date(Date.UTC(year, month - 1, day))],
  });
  return measurement;
}
