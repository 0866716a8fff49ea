import type { Event, EventInput, EventRestore, EventVoid } from "@billing/shared";
import { ObjectId } from "mongodb";
import { iso } from "../db/ids.js";

/** `data` keys are the caller's (`$set`, `a.b`): stored as key/value pairs they stay data, never field paths. */
export interface DataPair {
  key: string;
  value: string;
}

export interface EventDoc {
  _id: ObjectId;
  accountId: string;
  ref: string;
  name: string;
  timestamp: Date;
  customerAlias: string;
  data: DataPair[];
  /** The `POST /events` call that stored it (absent on events stored before batches were recorded). */
  batchId?: ObjectId;
  createdAt: Date;
  updatedAt: Date;
  /** Set once voided (after its `event_voids` claim): it counts nowhere, and is never deleted. */
  voided?: Omit<EventVoid, "eventId">;
  /** Its last restore (a backfill's revert undid a void of it): it counts again. */
  restored?: EventRestore;
  /** The backfill that stored it (its revert voids it). */
  backfillId?: ObjectId;
}

export const dataOf = (data: DataPair[]) => Object.fromEntries(data.map(({ key, value }) => [key, value]));

/** What a meter reads of an event. */
export interface MeteredEvent {
  timestamp: Date;
  data: Record<string, string>;
}

export const toEvent = ({
  _id,
  name,
  timestamp,
  customerAlias,
  ref,
  data,
  createdAt,
  updatedAt,
  voided,
  restored,
  backfillId,
}: EventDoc): Event => ({
  name,
  timestamp: iso(timestamp),
  customerAlias,
  ref,
  id: _id.toHexString(),
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
  data: dataOf(data),
  ...(voided && { voided: { eventId: _id.toHexString(), ...voided } }),
  ...(restored && { restored }),
  ...(backfillId && { backfillId: backfillId.toHexString() }),
});

export const toDoc = (
  accountId: string,
  batchId: ObjectId,
  { data = {}, timestamp, ...fields }: EventInput,
  now: Date,
  backfillId?: ObjectId,
): EventDoc => ({
  _id: new ObjectId(),
  accountId,
  batchId,
  ...(backfillId && { backfillId }),
  ...fields,
  timestamp: new Date(timestamp),
  data: Object.entries(data).map(([key, value]) => ({ key, value })),
  createdAt: now,
  updatedAt: now,
});
