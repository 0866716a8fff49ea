import type { AuditActor, Backfill, BackfillStatus } from "@billing/shared";
import { conflict, notFound } from "../domain/errors.js";
import {
  BACKFILL_EVENTS_PER_STEP,
  BACKFILL_REPLACED_PER_STEP,
  backfillPage,
  replacedReason,
  revertedReason,
} from "../domain/usage/backfill.js";
import {
  type BackfillStep,
  presentBackfill,
  type StoredBackfill,
  type StoredRevert,
  windowOf,
} from "../repositories/backfills.js";
import type { WindowEvent } from "../repositories/event-windows.js";
import type { CallScope } from "./call-scope.js";
import { summarizeAgain, voidByBackfill } from "./event-voids.js";

/** 409: a backfill is reverted once, and only once it is COMPLETED. */
const notRevertible = (status: BackfillStatus) =>
  conflict(
    status === "REVERTING" || status === "REVERTED"
      ? `The backfill is ${status} already: a backfill is reverted once`
      : `The backfill is ${status}: only a COMPLETED backfill can be reverted`,
    [{ path: "backfillId", message: `is ${status}` }],
  );

/**
 * `POST /backfills/{backfillId}/revert`: a COMPLETED backfill becomes REVERTING (else 409 naming its status), the
 * upkeep worker undoing it in steps (revertStep). Once per backfill, decided by the unique insert of its revert's
 * claim: of two calls one is 202, the other 409; a call that claimed it and stopped before marking it is finished by
 * the next call (the claim's values) and that call is refused. 404 for another account's backfill.
 */
export async function revertBackfill(
  { repositories, accountId }: CallScope,
  backfillId: string,
  requestedBy: AuditActor,
): Promise<Backfill> {
  const stored = await repositories.backfills.get(accountId, backfillId);
  if (!stored) throw notFound("Backfill");
  if (stored.status !== "COMPLETED") throw notRevertible(stored.status);
  const request = { requestedAt: new Date(), requestedBy };
  if (await repositories.backfills.claimRevert(stored, request)) {
    const revert = await repositories.backfills.startRevert(stored, request);
    return presentBackfill({ ...stored, status: "REVERTING", revert });
  }
  const first = await repositories.backfills.revertClaim(accountId, stored.id);
  if (first) await repositories.backfills.startRevert(stored, first);
  throw notRevertible("REVERTING");
}

/** The progress after a revert step: REVERTING while `more` is left, else REVERTED (completedAt: now). */
function revertProgress(
  revert: StoredRevert,
  progress: Partial<StoredRevert>,
  counts: Backfill["counts"],
  more: boolean,
): BackfillStep {
  const next = { ...revert, ...progress, steps: revert.steps + 1 };
  return more
    ? { status: "REVERTING", revert: next, counts }
    : { status: "REVERTED", revert: { ...next, completedAt: new Date() }, counts };
}

/**
 * A page of the backfill's events voided, through the void path (reason "Reverted backfill <id>", by who asked for
 * the revert): the events of its page's refs that it stored (`backfillId` on the event: not an event of the same ref
 * stored before, which it counted a duplicate). An event voided since by someone else stays as it is.
 */
async function voidOwnPage(scope: CallScope, backfill: StoredBackfill, revert: StoredRevert): Promise<BackfillStep> {
  const refs = backfillPage(backfill.events, revert.pages).map(({ ref }) => ref);
  const eventIds =
    refs.length > 0 ? await scope.repositories.events.storedByBackfill(scope.accountId, refs, backfill.id) : [];
  let reverted = 0;
  for (const eventId of eventIds) {
    if (await voidByBackfill(scope, eventId, revertedReason(backfill.id), revert.requestedBy)) reverted += 1;
  }
  const pages = revert.pages + 1;
  const counts = { ...presentBackfill(backfill).counts };
  counts.reverted += reverted;
  const more = pages * BACKFILL_EVENTS_PER_STEP < backfill.events.length || backfill.mode === "REPLACE";
  return revertProgress(revert, { pages }, counts, more);
}

/** Of the backfills that stored these events, those whose revert was asked for (REVERTING or REVERTED). */
async function revertedBackfills({ repositories, accountId }: CallScope, events: WindowEvent[]): Promise<Set<string>> {
  const ids = [...new Set(events.flatMap(({ storedBy }) => (storedBy ? [storedBy] : [])))];
  const stored = await Promise.all(ids.map((id) => repositories.backfills.get(accountId, id)));
  return new Set(stored.flatMap((backfill) => (backfill?.revert ? [backfill.id] : [])));
}

/**
 * A page of the window's events the backfill replaced (REPLACE), restored: each unmarked (`restored` records the void
 * it undid, the reason "Reverted backfill <id>" and who), its void released (so it may be voided again), then each
 * rollup key of the page summarized again with it. Undefined when a summary must wait (a batch open, a compaction
 * meanwhile): the same page is redone by the next tick, restores already made matching nothing and summarized again.
 */
async function restorePage(
  scope: CallScope,
  backfill: StoredBackfill,
  revert: StoredRevert,
): Promise<BackfillStep | undefined> {
  const { repositories, accountId } = scope;
  const { events, next } = await repositories.events.ofWindow(
    accountId,
    windowOf(backfill),
    revert.restoreAfter ?? undefined,
    BACKFILL_REPLACED_PER_STEP,
  );
  const replaced = replacedReason(backfill.id);
  const reverted = revertedReason(backfill.id);
  const ofBackfill = events.filter(
    ({ voidReason, restoreReason }) => voidReason === replaced || (!voidReason && restoreReason === reverted),
  );
  // An event another backfill stored, reverted since, stays voided: without this backfill its revert voided it.
  const reverting = await revertedBackfills(scope, ofBackfill);
  const toRestore = ofBackfill.filter(({ storedBy }) => !storedBy || !reverting.has(storedBy));
  const restore = { reason: reverted, restoredAt: new Date().toISOString(), restoredBy: revert.requestedBy };
  for (const event of toRestore) {
    await repositories.events.markRestored(accountId, event, replaced, restore);
    await repositories.eventVoids.release(accountId, event.eventId, replaced);
  }
  if (await repositories.events.everyEventRolledUp()) {
    const keys = new Map(toRestore.map((event) => [JSON.stringify([event.key, event.batchId]), event]));
    for (const { key, batchId } of keys.values()) {
      if (!(await summarizeAgain(repositories, key, batchId))) return undefined;
    }
  }
  const counts = { ...presentBackfill(backfill).counts };
  counts.restored += toRestore.length;
  return revertProgress(revert, { restoreAfter: next ?? null }, counts, next !== undefined);
}

/**
 * One step of a revert (the upkeep worker's, services/backfills.ts stepBackfill): a page of the backfill's events
 * voided (BACKFILL_EVENTS_PER_STEP, as they were stored), then for a REPLACE a page of its window restored
 * (BACKFILL_REPLACED_PER_STEP); REVERTED after the last, `backfill.reverted`. Every step may be redone (a crash before
 * its progress was stored, a second instance): voids are claimed once, restores match only what is still voided.
 * Issued invoices follow from the late-usage rule, as for any void and any late usage.
 */
export function revertStep(scope: CallScope, backfill: StoredBackfill): Promise<BackfillStep | undefined> {
  const revert = backfill.revert;
  if (!revert) throw new Error(`backfill ${backfill.id} is REVERTING without its revert`);
  if (revert.pages * BACKFILL_EVENTS_PER_STEP < backfill.events.length) return voidOwnPage(scope, backfill, revert);
  return restorePage(scope, backfill, revert);
}
