import {
  type AuditActor,
  backfill,
  backfillCreate,
  backfillIdParam,
  backfillList,
  backfillListQuery,
  MAX_BACKFILL_EVENTS,
  type TokenScope,
} from "@billing/shared";
import { z } from "zod";
import { notFound } from "../domain/errors.js";
import { accountProcedure } from "../procedures.js";
import { commitBackfill } from "../services/backfill-commits.js";
import { revertBackfill } from "../services/backfill-reverts.js";
import { createBackfill, listBackfills, readBackfill } from "../services/backfills.js";
import { scopeOf } from "../services/call-scope.js";
import { router } from "../trpc.js";

/** Under `events`: a backfill is a window of a meter's events sent again. */
const tags = ["events"];
const backfillResponse = z.object({ backfill });
/** Who opened or reverted a backfill, as the audit log records the call. */
const actorOf = (ctx: { holder: { tokenId: string; scope: TokenScope } }): AuditActor => ({
  type: "token",
  tokenId: ctx.holder.tokenId,
  scope: ctx.holder.scope,
});

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
          "[from, to) and (with `customerId`) under the customer's aliases, else 400 naming the field. Without " +
          "`events`, 202 with the backfill OPEN: send its events with POST /events and its `backfillId` (held " +
          "apart, counted nowhere), then POST /backfills/{backfillId}/commit. The upkeep " +
          "worker applies it in the background (scheduler on or off), a bounded page a step, resumable: REPLACE " +
          "first voids the scope's events of the window stored before the backfill (POST /events/{eventId}/void's " +
          "path: kept, `VOIDED`), then the events are stored (refs keep them once). Issued invoices are adjusted " +
          "by the account's late-usage rule. `backfill.completed` or `backfill.failed` once. Keyed.",
      },
      successStatus: 202,
    })
    .input(backfillCreate)
    .output(backfillResponse)
    .mutation(async ({ ctx, input }) => ({ backfill: await createBackfill(scopeOf(ctx), input, actorOf(ctx)) })),

  commit: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/backfills/{backfillId}/commit",
        tags,
        summary: "Commit an OPEN backfill: the events it holds are applied at once",
        description:
          "202 with the backfill PENDING and the events it held (POST /events with its `backfillId`). Only an OPEN " +
          "backfill, once: else 409 `CONFLICT` naming its status (`backfillId`: `is PENDING`, …). The upkeep worker " +
          "then applies it as a backfill sent with its events: REPLACE first voids the scope's events of the window " +
          "stored before the backfill was opened, then the held events are stored. Keyed. Another account's " +
          "backfill is a 404.",
      },
      successStatus: 202,
    })
    .input(backfillIdParam)
    .output(backfillResponse)
    .mutation(async ({ ctx, input }) => ({ backfill: await commitBackfill(scopeOf(ctx), input.backfillId) })),

  revert: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/backfills/{backfillId}/revert",
        tags,
        summary: "Revert a completed backfill: its events voided, the events it replaced counted again",
        description:
          "202 with the backfill REVERTING. Only a COMPLETED backfill, once: else 409 `CONFLICT` naming its status " +
          "(`backfillId`: `is REVERTING`, …). The upkeep worker undoes it in the background, a bounded page a step, " +
          "resumable: its events voided (POST /events/{eventId}/void's path, reason `Reverted backfill <id>`), then " +
          "(REPLACE) the events it voided restored (each `restored`, naming the void it undid and who), each day's " +
          "usage summarized again. Issued invoices are adjusted by the account's late-usage rule. REVERTED and " +
          "`backfill.reverted` once. Keyed. Another account's backfill is a 404.",
      },
      successStatus: 202,
    })
    .input(backfillIdParam)
    .output(backfillResponse)
    .mutation(async ({ ctx, input }) => ({
      backfill: await revertBackfill(scopeOf(ctx), input.backfillId, actorOf(ctx)),
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
