import { z } from "zod";
import { auditActor } from "./audit-log.js";
import { idCursor, pageQuery, requiredText, resourceRef, timestamp, unicodeString } from "./common.js";

export const MAX_EVENTS_PER_BATCH = 1000;
const MAX_DATA_KEYS = 100;

/**
 * A `__proto__` key, which zod's records drop while parsing (it cannot be assigned as a plain object's key), is
 * refused rather than dropped in silence.
 */
function refusePrototypeKey(data: Record<string, string>, ctx: z.RefinementCtx) {
  if (typeof data === "object" && data !== null && Object.hasOwn(data, "__proto__")) {
    ctx.addIssue({ code: "custom", path: ["__proto__"], message: "`__proto__` cannot be a data key" });
  }
  return data;
}

/** Keys are the caller's own: `$gt` and `a.b` are plain keys. */
export const eventData = z
  .preprocess(refusePrototypeKey, z.record(unicodeString().min(1).max(200), unicodeString().max(1000)))
  .refine((data) => Object.keys(data).length <= MAX_DATA_KEYS, `at most ${MAX_DATA_KEYS} keys`)
  .meta({
    description:
      `String values under string keys (at most ${MAX_DATA_KEYS} keys of up to 200 characters, values ` +
      `up to 1000).`,
  });

/** Fields a caller writes; the service adds id, createdAt and updatedAt. */
const eventFields = {
  name: requiredText(200).meta({ description: "Event name." }),
  timestamp: timestamp.meta({ description: "When the event happened; an offset is allowed, responses are in UTC." }),
  customerAlias: requiredText(200),
  ref: requiredText(200).meta({
    description:
      "The caller's reference, unique within the account: an event whose ref is already stored is not stored again.",
  }),
};

export const eventInput = z.strictObject({ ...eventFields, data: eventData.optional() }).meta({ id: "EventInput" });
export type EventInput = z.infer<typeof eventInput>;

export const eventBatch = z
  .strictObject({
    events: z.array(eventInput).min(1).max(MAX_EVENTS_PER_BATCH),
    backfillId: resourceRef.optional().meta({
      description:
        "An OPEN backfill (POST /backfills without events) that holds the batch apart, counted nowhere until its " +
        "commit: each event of its meter's event name, in its [from, to) and (with its customer) under one of the " +
        "customer's aliases, else 400 naming the field; a backfill not OPEN is 409. Refs already held are duplicates.",
    }),
  })
  .meta({
    id: "EventBatch",
    description: `1 to ${MAX_EVENTS_PER_BATCH} events; a batch with any invalid event is refused whole.`,
  });
export type EventBatch = z.infer<typeof eventBatch>;

export const eventIngestResult = z
  .object({
    stored: z.number().int().min(0).meta({ description: "Number of events stored by this call." }),
    duplicates: z.array(z.string()).meta({
      description:
        "Refs not stored, in batch order: already stored earlier, or repeated within this batch (every repeat " +
        "after the first).",
    }),
  })
  .meta({ id: "EventIngestResult" });
export type EventIngestResult = z.infer<typeof eventIngestResult>;

/** Why an event was voided (`POST /events/{eventId}/void`). */
export const eventVoidReason = requiredText(500).meta({
  description: "Why the event stops counting (e.g. a measurement sent twice): kept with the event for the audit.",
});

/** The void of an event: it stays stored, and counts nowhere from `voidedAt` on. */
export const eventVoid = z
  .object({
    eventId: z.string(),
    reason: z.string(),
    voidedAt: timestamp.meta({ description: "When the void was recorded (wall clock)." }),
    voidedBy: auditActor.meta({ description: "Who voided it, as the audit log records the call." }),
  })
  .meta({ id: "EventVoid" });
export type EventVoid = z.infer<typeof eventVoid>;

/**
 * A void undone: a REPLACE backfill's void of the event, undone by the backfill's revert. The event counts again from
 * `restoredAt` on, as usage stored then (an issued invoice is adjusted by the late-usage rule).
 */
export const eventRestore = z
  .object({
    reason: z.string().meta({ description: "Why it counts again: `Reverted backfill <id>`." }),
    restoredAt: timestamp.meta({ description: "When the revert restored it (wall clock)." }),
    restoredBy: auditActor.meta({ description: "Who asked for the revert, as the audit log records the call." }),
    voided: eventVoid.omit({ eventId: true }).meta({ description: "The void it undid." }),
  })
  .meta({ id: "EventRestore" });
export type EventRestore = z.infer<typeof eventRestore>;

export const eventVoidInput = z.strictObject({
  eventId: unicodeString().min(1).max(200).meta({ description: "The event's id." }),
  reason: eventVoidReason,
});
export type EventVoidInput = z.infer<typeof eventVoidInput>;

export const event = z
  .object({
    ...eventFields,
    id: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
    data: eventData.meta({ description: "The data sent with the event; `{}` when none was sent." }),
    voided: eventVoid.optional().meta({ description: "Present once the event was voided: it counts nowhere." }),
    restored: eventRestore.optional().meta({
      description: "Present once a void of it was undone (its last restore): it counts again.",
    }),
    backfillId: z.string().optional().meta({ description: "The backfill that stored it (POST /backfills)." }),
  })
  .meta({ id: "Event" });
export type Event = z.infer<typeof event>;

export const eventQuery = z
  .object({
    startTime: timestamp.meta({ description: "Inclusive start of the period." }),
    endTime: timestamp.meta({ description: "Exclusive end of the period." }),
    eventName: requiredText(200).meta({ description: "Only events of exactly this name." }).optional(),
    limit: pageQuery.limit,
    cursor: idCursor.meta({ description: "The id of the last event of the previous page." }),
  })
  .refine(({ startTime, endTime }) => Date.parse(startTime) <= Date.parse(endTime), {
    path: ["startTime"],
    message: "must not be after endTime",
  });
export type EventQuery = z.infer<typeof eventQuery>;

export const eventList = z
  .object({
    events: z
      .array(event)
      .meta({ description: "Ordered by timestamp, then id. A page shorter than `limit` is the last one." }),
  })
  .meta({ id: "EventList" });
export type EventList = z.infer<typeof eventList>;

/** Why an event does not count for a meter (or, NO_METER, for any). */
export const attributionReason = z
  .enum([
    "NO_CUSTOMER",
    "FILTERED_OUT",
    "MISSING_VALUE",
    "VALUE_NOT_A_NUMBER",
    "DAY_SET_BY_MEASUREMENT",
    "AFTER_INVOICE",
    "ADJUSTED",
    "AFTER_WINDOW",
    "VOIDED",
    "NO_METER",
  ])
  .meta({ id: "AttributionReason" });
export type AttributionReason = z.infer<typeof attributionReason>;

export const eventAttribution = z
  .object({
    customerId: z
      .string()
      .nullable()
      .meta({ description: "The customer the event belongs to: by alias, else by externalId; null for none." }),
    meters: z
      .array(
        z.object({
          key: z.string(),
          counted: z.boolean(),
          reason: attributionReason.optional(),
          adjustedBy: z.string().optional().meta({
            description:
              "ADJUSTED (counted: true): stored after its invoice, billed as late usage on this later invoice.",
          }),
        }),
      )
      .meta({ description: "Every meter of the event's name, and whether it counts the event (else why not)." }),
    reason: z.enum(["NO_METER"]).optional().meta({ description: "NO_METER when no meter has the event's name." }),
  })
  .meta({ id: "EventAttribution" });
export type EventAttribution = z.infer<typeof eventAttribution>;

export const eventIdParam = z.object({
  eventId: unicodeString().min(1).max(200).meta({ description: "The event's id." }),
});
export const eventExplanation = z.object({ event, attribution: eventAttribution }).meta({ id: "EventExplanation" });
export type EventExplanation = z.infer<typeof eventExplanation>;
