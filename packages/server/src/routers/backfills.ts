import {
  backfill,
  backfillCreate,
  backfillIdParam,
  backfillList,
  backfillListQuery,
  MAX_BACKFILL_EVENTS,
} from "@billing/shared";
import { z } from "zod";
import { notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { createBackfill, listBackfills, readBackfill } from "../services/backfills.js";
import { scopeOf } from "../services/call-scope.js";
import { router } from "../trpc.js";

/** Under `events`: a backfill is a window of a meter's events sent again. */
const tags = ["events"];
const backfillResponse = z.object({ backfill });

export const backfillsRouter = router({
  create: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/backfills",
        tags,
        summary: "Backfill a window of a meter's usage: add events to it, or replace what it holds",
        description:
          `202 with the backfill PENDING; 1 to ${MAX_BACKFILL_EVENTS} events, each of the meter's event name, in ` +
          "[from, to) and (with `customerId`) under the customer's aliases, else 400 naming the field. The upkeep " +
          "worker applies it in the background (scheduler on or off), a bounded page a step, resumable: REPLACE " +
          "first voids the scope's events of the window stored before the backfill (POST /events/{eventId}/void's " +
          "path: kept, `VOIDED`), then the events are stored (refs keep them once). Issued invoices are adjusted " +
          "by the account's late-usage rule. `backfill.completed` or `backfill.failed` once. Keyed.",
      },
      successStatus: 202,
    })
    .input(backfillCreate)
    .output(backfillResponse)
    .mutation(async ({ ctx, input }) => ({
      backfill: await createBackfill(scopeOf(ctx), input, {
        type: "token",
        tokenId: ctx.holder.tokenId,
        scope: ctx.holder.scope,
      }),
    })),

  list: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/backfills",
        tags,
        summary: "The account's backfills, newest first",
        description: "A `cursor` naming no backfill of the account is 404.",
      },
    })
    .input(backfillListQuery)
    .output(backfillList)
    .query(({ ctx, input }) => listBackfills(scopeOf(ctx), input)),

  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/backfills/{backfillId}",
        tags,
        summary: "A backfill: its status and counts (events sent, replaced, stored, duplicates)",
        description: "Another account's backfill is a 404.",
      },
    })
    .input(backfillIdParam)
    .output(backfillResponse)
    .query(async ({ ctx, input }) => {
      const found = await readBackfill(scopeOf(ctx), input.backfillId);
      if (!found) throw notFound("Backfill");
      return { backfill: found };
    }),
});
