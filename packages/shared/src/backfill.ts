import { z } from "zod";
import { auditActor } from "./audit-log.js";
import { idCursor, pageQuery, requiredText, resourceRef, timestamp } from "./common.js";
import { eventInput } from "./event.js";

/**
 * Events one backfill holds at most: sent with `POST /backfills`, or held by `POST /events` with its `backfillId`
 * (a larger backfill is sent as several, one per window).
 */
export const MAX_BACKFILL_EVENTS = 1000;

export const backfillMode = z.enum(["ADD", "REPLACE"]).meta({
  id: "BackfillMode",
  description:
    "ADD: the events are stored beside what the window holds (refs already stored are duplicates). REPLACE: the " +
    "scope's events of the window stored before the backfill was opened are voided first (POST /events/{eventId}/" +
    "void's path: each kept, `VOIDED`), then the events are stored.",
});
export type BackfillMode = z.infer<typeof backfillMode>;

export const backfillStatus = z
  .enum(["OPEN", "PENDING", "REPLACING", "INGESTING", "COMPLETED", "FAILED", "REVERTING", "REVERTED"])
  .meta({
    id: "BackfillStatus",
    description:
      "OPEN while it holds the events sent with its `backfillId` (POST /events), counted nowhere, until POST " +
      "/backfills/{backfillId}/commit; PENDING until the upkeep worker's first step; REPLACING while it voids " +
      "the replaced events (REPLACE); " +
      "INGESTING while it stores the events, a page a step; COMPLETED (`backfill.completed`) or FAILED " +
      "(`backfill.failed`, `failure` says why; what was done before stays done). A COMPLETED backfill reverted " +
      "(POST /backfills/{backfillId}/revert): REVERTING while the worker voids its events and restores those it " +
      "replaced, then REVERTED (`backfill.reverted`).",
  });
export type BackfillStatus = z.infer<typeof backfillStatus>;

export const backfillCreate = z
  .strictObject({
    customerId: resourceRef.optional().meta({
      description: "Only this customer's usage (its id or externalId); absent: every customer's.",
    }),
    meterKey: requiredText(200).meta({ description: "The meter whose event name the backfill holds." }),
    from: timestamp.meta({ description: "Inclusive start of the window." }),
    to: timestamp.meta({ description: "Exclusive end of the window." }),
    mode: backfillMode,
    events: z
      .array(eventInput)
      .min(1)
      .max(MAX_BACKFILL_EVENTS)
      .optional()
      .meta({
        description:
          `1 to ${MAX_BACKFILL_EVENTS} events, each of the meter's event name, in [from, to), and (with ` +
          "`customerId`) under one of the customer's aliases: the backfill is committed at once (PENDING). Absent: " +
          "it is OPEN, its events sent with POST /events and its `backfillId`, then committed.",
      }),
  })
  .refine(({ from, to }) => Date.parse(from) < Date.parse(to), { path: ["from"], message: "must be before to" })
  .meta({ id: "BackfillCreate" });
export type BackfillCreate = z.infer<typeof backfillCreate>;

export const backfill = z
  .object({
    id: z.string(),
    customerId: z.string().nullable(),
    meterKey: z.string(),
    eventName: z.string().meta({ description: "The meter's event name when the backfill was opened." }),
    from: timestamp,
    to: timestamp,
    mode: backfillMode,
    status: backfillStatus,
    counts: z
      .object({
        events: z.number().int().min(0).meta({ description: "Events sent with the backfill (held, while OPEN)." }),
        replaced: z.number().int().min(0).meta({ description: "Events of the window voided (REPLACE)." }),
        stored: z.number().int().min(0).meta({ description: "Events stored so far." }),
        duplicates: z.number().int().min(0).meta({
          description: "Events not stored: their ref was stored already (by an earlier call, or a page redone).",
        }),
        reverted: z.number().int().min(0).meta({ description: "Events of the backfill voided by its revert." }),
        restored: z.number().int().min(0).meta({ description: "Replaced events counted again by its revert." }),
      })
      .meta({ id: "BackfillCounts" }),
    failure: z.string().nullable(),
    createdAt: timestamp,
    committedAt: timestamp.nullable().meta({
      description: "When it was committed: opened OPEN, by POST /backfills/{backfillId}/commit; else when opened.",
    }),
    completedAt: timestamp.nullable(),
    revert: z
      .object({
        requestedAt: timestamp,
        requestedBy: auditActor.meta({ description: "Who reverted it, as the audit log records the call." }),
        completedAt: timestamp.nullable().meta({ description: "When it became REVERTED." }),
      })
      .nullable()
      .meta({ id: "BackfillRevert", description: "Its revert, once asked for (POST /backfills/{backfillId}/revert)." }),
  })
  .meta({ id: "Backfill" });
export type Backfill = z.infer<typeof backfill>;

export const backfillIdParam = z.object({ backfillId: resourceRef });

export const backfillListQuery = z.object({
  limit: pageQuery.limit,
  cursor: idCursor.meta({ description: "The id of the last backfill of the previous page." }),
});
export type BackfillListQuery = z.infer<typeof backfillListQuery>;

export const backfillList = z
  .object({
    backfills: z.array(backfill).meta({ description: "Newest first. A page shorter than `limit` is the last one." }),
  })
  .meta({ id: "BackfillList" });
export type BackfillList = z.infer<typeof backfillList>;
