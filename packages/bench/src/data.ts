import type { EventInput } from "@billing/shared";
import { ObjectId } from "mongodb";

/**
 * The usage the benchmark loads. Events arrive in time order, as live usage does: 1,000 per hour spread over
 * 1,000 customers and 10 event names, so a one-hour window holds 1,000 events (100 of each name) whatever the
 * total stored, and a query's answer is the same size at every checkpoint.
 */
export const EVENTS_PER_HOUR = 1000;
export const EVENT_NAMES = 10;
export const BATCH_SIZE = 1000;
const HOUR_MS = 3_600_000;
export const FIRST_EVENT_AT = Date.UTC(2026, 0, 1);

export const customerAlias = (index: number, customers: number) => `customer-${index % customers}`;
export const eventName = (index: number) => `api-call-${index % EVENT_NAMES}`;

export function eventInput(index: number, customers: number): EventInput {
  return {
    name: eventName(index),
    timestamp: new Date(FIRST_EVENT_AT + Math.floor((index * HOUR_MS) / EVENTS_PER_HOUR)).toISOString(),
    customerAlias: customerAlias(index, customers),
    ref: `bench-event-${index}`,
    data: { region: "eu-west-1", endpoint: `/v1/resource/${index % 37}`, units: String(1 + (index % 5)) },
  };
}

/** The batch of events with indexes [batch × BATCH_SIZE, (batch + 1) × BATCH_SIZE). */
export const eventBatch = (batch: number, customers: number) =>
  Array.from({ length: BATCH_SIZE }, (_, offset) => eventInput(batch * BATCH_SIZE + offset, customers));

/** The one-hour window starting at hour `hour` after the first event. */
export const hourWindow = (hour: number) => ({
  startTime: new Date(FIRST_EVENT_AT + hour * HOUR_MS).toISOString(),
  endTime: new Date(FIRST_EVENT_AT + (hour + 1) * HOUR_MS).toISOString(),
});

/**
 * The document the events repository stores for an event of the `POST /events` call `batchId`, for the raw
 * baselines: the same fields, so that they write as much. Section 1 checks it against a document the service stored.
 */
export const storedEvent = (
  accountId: string,
  batchId: ObjectId,
  { data = {}, timestamp, ...fields }: EventInput,
  at: Date,
) => ({
  _id: new ObjectId(),
  accountId,
  batchId,
  ...fields,
  timestamp: new Date(timestamp),
  data: Object.entries(data).map(([key, value]) => ({ key, value })),
  createdAt: at,
  updatedAt: at,
});
