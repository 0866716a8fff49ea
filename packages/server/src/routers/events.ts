import {
  eventBatch,
  eventExplanation,
  eventIdParam,
  eventIngestResult,
  eventList,
  eventQuery,
  eventVoid,
  eventVoidInput,
} from "@billing/shared";
import { ZodError } from "zod";
import { badRequest, notFound, zodIssues } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { holdBackfillEvents } from "../services/backfill-commits.js";
import { scopeOf } from "../services/call-scope.js";
import { voidEvent } from "../services/event-voids.js";
import { ingestEvents } from "../services/ingestion.js";
import { explainEvent } from "../services/usage.js";
import { router } from "../trpc.js";

const tags = ["events"];

/** Positions in the batch of the events that failed validation, from issue paths like `events.3.name`. */
const invalidEventIndexes = (error: ZodError) => [
  ...new Set(
    error.issues.flatMap(({ path: [key, index] }) => (key === "events" && typeof index === "number" ? [index] : [])),
  ),
];

/**
 * A batch is validated whole before anything is written. Used before `.input()`, this middleware wraps that
 * validation: when events are invalid, the message names their positions (the issues keep every detail).
 */
const namingInvalidEvents = accountProcedure.use(async ({ next }) => {
  const result = await next();
  const cause = result.ok || result.error.code !== "BAD_REQUEST" ? undefined : result.error.cause;
  if (!(cause instanceof ZodError)) return result;
  const indexes = invalidEventIndexes(cause);
  if (indexes.length === 0) return result;
  throw badRequest(`Invalid events at indexes ${indexes.join(", ")}`, zodIssues(cause));
});

export const eventsRouter = router({
  ingest: namingInvalidEvents
    .meta({
      openapi: {
        method: "POST",
        path: "/events",
        tags,
        summary: "Record usage events",
        description:
          "Idempotent per `ref`: an event whose ref is already stored is reported in `duplicates`, not stored again. " +
          "With `backfillId` (an OPEN backfill, POST /backfills without events), the batch is held apart by the " +
          "backfill, counted nowhere until POST /backfills/{backfillId}/commit; `stored` counts the events held, " +
          "`duplicates` the refs it held already.",
      },
      rateLimit: "ingest",
    })
    .input(eventBatch)
    .output(eventIngestResult)
    .mutation(({ ctx, input }) =>
      input.backfillId === undefined
        ? ingestEvents(scopeOf(ctx), input.events)
        : holdBackfillEvents(scopeOf(ctx), input.backfillId, input.events),
    ),

  query: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/events",
        tags,
        summary: "Query usage events of a period, optionally by name",
        description:
          "`startTime` must not be after `endTime` (else 400). A `cursor` naming no event of this query is 404.",
      },
    })
    .input(eventQuery)
    .output(eventList)
    .query(async ({ ctx, input }) => ({ events: await ctx.repositories.events.query(ctx.accountId, input) })),

  explain: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/events/{eventId}",
        tags,
        summary: "An event, the customer it belongs to, and whether each meter of its name counts it (else why not)",
        description:
          "For an event that did not count as expected: which customer its alias names, what each meter says.",
      },
    })
    .input(eventIdParam)
    .output(eventExplanation)
    .query(async ({ ctx, input }) => {
      const explained = await explainEvent(ctx.repositories, ctx.accountId, input.eventId);
      if (!explained) throw notFound("Event");
      return explained;
    }),

  void: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/events/{eventId}/void",
        tags,
        summary: "Void an event: it stops counting from now on, and is kept with who voided it and why",
        description:
          "Every usage read and every invoice priced after leaves the event out; an invoice already issued for its " +
          "day is adjusted by the account's late-usage rule (a lowered cycle: a `USAGE_CORRECTION` credit note). " +
          "Never deleted: `GET /events/{eventId}` says `VOIDED`. Once per event: a second void is 409 " +
          "(webhook `event.voided` once). 404 for another account's event.",
      },
    })
    .input(eventVoidInput)
    .output(eventVoid)
    .mutation(({ ctx, input }) =>
      voidEvent(scopeOf(ctx), input.eventId, input.reason, {
        type: "token",
        tokenId: ctx.holder.tokenId,
        scope: ctx.holder.scope,
      }),
    ),
});
