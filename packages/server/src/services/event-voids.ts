import type { AuditActor, EventVoid } from "@billing/shared";
import { canonicalId } from "../db/ids.js";
import { conflict, notFound } from "../domain/errors.js";
import type { Logger } from "../logger.js";
import { presentEventVoid, type StoredEventVoid } from "../repositories/event-voids.js";
import type { Repositories } from "../repositories/index.js";
import type { RollupKey } from "../repositories/usage-rollups.js";
import type { CallScope } from "./call-scope.js";
import { publishChange } from "./webhook-events.js";

/** Summaries of the voided event's rollup key one step tries before leaving it to the next (a race lost each). */
const SUMMARIES_PER_VOID = 3;
/** Voids the worker applies per tick. */
export const VOIDS_PER_TICK = 20;

/** Marks the event voided (raw reads leave it out) and publishes `event.voided`: both may be done again. */
async function markAndAnnounce(repositories: Repositories, log: Logger, stored: StoredEventVoid) {
  const { accountId, eventId, ref } = stored;
  const { eventId: _, ...voided } = presentEventVoid(stored);
  await repositories.events.markVoided(accountId, { eventId, ref }, voided);
  await publishChange(repositories, accountId, log, { type: "event.voided", data: presentEventVoid(stored) });
}

/**
 * Summarizes a rollup key again from its events not voided, as a widening is (usage-rollups.ts `widen`, decided by
 * the next compaction's unique `_id`, and holding the batch `holding`, else tried again later): up to
 * SUMMARIES_PER_VOID tries, each after `done` said another instance has not done it meanwhile. That compaction's
 * `storedAt` is now, so late usage (services/billing/late-usage.ts) prices an invoiced cycle of the key's day again.
 * True once stored (or done by another).
 */
export async function summarizeAgain(
  repositories: Repositories,
  key: RollupKey,
  holding: string | undefined,
  done: () => Promise<boolean> = async () => false,
): Promise<boolean> {
  const dimensionKeys = (await repositories.meters.dimensionKeysByEventName(key.accountId, [key.name])).get(key.name);
  for (let attempt = 1; attempt <= SUMMARIES_PER_VOID; attempt += 1) {
    if (await done()) return true;
    const { outcome } = await repositories.usageRollups.widen(
      key,
      dimensionKeys ?? [],
      repositories.events.ofRollupKey,
      repositories.events.openBatches,
      { holding },
    );
    if (outcome === "widened") return true;
  }
  return false;
}

/**
 * Makes a recorded void count in the rollups (the worker's step, off the request: reading a rollup key's events
 * goes to every shard of the account): the event's rollup key (name, alias, UTC day) is summarized again without it
 * (summarizeAgain, holding the voided event's batch), so late usage credits an invoiced cycle the difference. Every
 * step may be run again: a void is redone until its summary is stored (`appliedAt`). Returns whether it was.
 */
export async function applyVoid(repositories: Repositories, log: Logger, stored: StoredEventVoid): Promise<boolean> {
  const { accountId, eventId, key } = stored;
  await markAndAnnounce(repositories, log, stored);
  // Events stored before batches are not all rolled up yet: usage is read from raw events, which leave it out.
  if (!(await repositories.events.everyEventRolledUp())) return false;
  // Applied meanwhile by another instance's worker: its summary holds the void, nothing is left to do.
  const applied = async () => Boolean((await repositories.eventVoids.get(accountId, eventId))?.appliedAt);
  if (!(await summarizeAgain(repositories, key, stored.batchId, applied))) return false;
  await repositories.eventVoids.markApplied(eventId, new Date());
  return true;
}

/** The void of the account's event, not recorded yet; undefined when the account has no such event. */
async function voidOf(
  repositories: Repositories,
  accountId: string,
  eventId: string,
  reason: string,
  actor: AuditActor,
): Promise<StoredEventVoid | undefined> {
  const target = await repositories.events.toVoid(accountId, eventId);
  if (!target) return undefined;
  const eventVoid = { eventId: canonicalId(eventId), accountId, ...target, reason, voidedAt: new Date() };
  return { ...eventVoid, voidedBy: actor, appliedAt: null };
}

/**
 * A void made by a backfill's step (a REPLACE's, services/backfills.ts; a revert's, backfill-reverts.ts): voidEvent's
 * path, but a void recorded already (the step redone after a crash between the claim and the mark) is marked and
 * announced again, not refused. Returns whether the event's void has this `reason` (it was voided by this backfill
 * step's kind, now or by the step's earlier try).
 */
export async function voidByBackfill(
  { repositories, accountId, log }: CallScope,
  eventId: string,
  reason: string,
  actor: AuditActor,
): Promise<boolean> {
  const stored = await voidOf(repositories, accountId, eventId, reason, actor);
  if (!stored) return false;
  const recorded = (await repositories.eventVoids.claim(accountId, stored))
    ? stored
    : await repositories.eventVoids.get(accountId, stored.eventId);
  if (recorded) await markAndAnnounce(repositories, log, recorded);
  return recorded?.reason === reason;
}

/**
 * `POST /events/{eventId}/void`: the event stops counting, in every usage read and every invoice priced after the
 * worker's next step (applyVoid; raw reads leave it out at once); an issued invoice is adjusted by the late-usage
 * rule. Never deleted. Once per event, decided by the void's unique insert: a second void (concurrent or later) is
 * 409 naming the first. 404 for another account's event.
 */
export async function voidEvent(
  { repositories, accountId, log }: CallScope,
  eventId: string,
  reason: string,
  actor: AuditActor,
): Promise<EventVoid> {
  const stored = await voidOf(repositories, accountId, eventId, reason, actor);
  if (!stored) throw notFound("Event");
  if (!(await repositories.eventVoids.claim(accountId, stored))) {
    const first = await repositories.eventVoids.get(accountId, stored.eventId);
    throw conflict(`Event already voided${first ? ` at ${first.voidedAt.toISOString()}` : ""}`, [
      { path: "eventId", message: "is voided already" },
    ]);
  }
  await markAndAnnounce(repositories, log, stored);
  return presentEventVoid(stored);
}

/** The worker's step: voids recorded but not applied yet (a crash, a batch still open then), each tried again. */
export async function applyPendingVoids(repositories: Repositories, log: Logger, limit = VOIDS_PER_TICK) {
  let applied = 0;
  for (const stored of await repositories.eventVoids.pending(limit)) {
    if (await applyVoid(repositories, log, stored)) applied += 1;
  }
  return applied;
}
