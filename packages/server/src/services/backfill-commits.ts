import { type Backfill, type EventIngestResult, type EventInput, MAX_BACKFILL_EVENTS } from "@billing/shared";
import { testClockOf } from "../billing-clock.js";
import { badRequest, conflict, notFound } from "../domain/errors.js";
import { backfillEventIssues } from "../domain/usage/backfill.js";
import { presentBackfill, type StoredBackfill } from "../repositories/backfills.js";
import type { CallScope } from "./call-scope.js";
import { refuseAfterClock } from "./ingestion.js";

/** 409: events are held by, and a commit is made of, an OPEN backfill only. */
const notOpen = (status: Backfill["status"], what: string) =>
  conflict(`The backfill is ${status}: only an OPEN backfill ${what}`, [
    { path: "backfillId", message: `is ${status}` },
  ]);

/**
 * `POST /events` with a `backfillId`: the batch is held apart by the OPEN backfill (counted in no usage read or
 * invoice) until its commit. Each event must fit the backfill's scope (its meter's event name, [from, to), its
 * customer's aliases when it has one): else 400 naming `events.<n>.<field>`; a backfill of nobody (or of another
 * account) is 400 naming `backfillId`, one not OPEN 409. Refs already held are duplicates; past MAX_BACKFILL_EVENTS
 * held the batch is refused whole (409).
 */
export async function holdBackfillEvents(
  scope: CallScope,
  backfillId: string,
  events: EventInput[],
): Promise<EventIngestResult> {
  const { repositories, accountId } = scope;
  const backfill = await repositories.backfills.get(accountId, backfillId);
  if (!backfill) throw badRequest("No backfill has this id", [{ path: "backfillId", message: "names no backfill" }]);
  if (backfill.status !== "OPEN") throw notOpen(backfill.status, "holds events: open another");
  const issues = backfillEventIssues(events, backfill);
  if (issues.length > 0) throw badRequest("Events outside the backfill's scope", issues);
  refuseAfterClock(
    testClockOf(accountId),
    events.map((event) => event.timestamp),
    (index) => `events.${index}.timestamp`,
  );
  const [all, already] = await Promise.all([
    repositories.backfills.heldCount(backfill),
    repositories.backfills.heldCount(
      backfill,
      events.map(({ ref }) => ref),
    ),
  ]);
  if (all - already + new Set(events.map(({ ref }) => ref)).size > MAX_BACKFILL_EVENTS) {
    throw conflict(`A backfill holds at most ${MAX_BACKFILL_EVENTS} events: commit it and open another`, [
      { path: "events", message: `would take the backfill past ${MAX_BACKFILL_EVENTS} events (${all} held)` },
    ]);
  }
  const held = await repositories.backfills.hold(backfill, events);
  // A commit claimed since the status was read takes the events held when it read them (after its claim): this
  // batch's are in it, or the caller is told which are not. Without a claim now, any commit's read comes after.
  const claim = await repositories.backfills.commitClaim(backfill);
  if (!claim) return held;
  const { events: committed } = await commitHeld(scope, backfill, claim.committedAt);
  const taken = new Set(committed.map(({ ref }) => ref));
  const duplicates = new Set(held.duplicates);
  const left = events.map(({ ref }) => ref).filter((ref) => !duplicates.has(ref) && !taken.has(ref));
  if (left.length === 0) return held;
  throw conflict("The backfill was committed while this batch was sent: some of its events are not in the commit", [
    { path: "backfillId", message: `was committed without ${left.join(", ")}: send them to another backfill` },
  ]);
}

/**
 * Marks the backfill PENDING with the events its commit takes (commitEvents: read as held after its claim, once),
 * under its commit's claim (`committedAt`).
 */
async function commitHeld({ repositories }: CallScope, backfill: StoredBackfill, committedAt: Date) {
  const read = await repositories.backfills.held(backfill, MAX_BACKFILL_EVENTS);
  const events = await repositories.backfills.commitEvents(backfill, committedAt, read);
  await repositories.backfills.commit(backfill, committedAt, events);
  const counts = { ...backfill.counts, events: events.length };
  return { events, backfill: presentBackfill({ ...backfill, status: "PENDING", committedAt, counts }) };
}

/**
 * `POST /backfills/{backfillId}/commit`: an OPEN backfill becomes PENDING with the events it held, and the upkeep
 * worker applies them as it applies a backfill sent whole (services/backfills.ts). Once, decided by the unique insert
 * of its commit's claim: of two calls one is 202, the other 409 naming the status; a call that claimed and stopped
 * before marking it is finished by the next call (the claim's values), then refused. 404 for another account's.
 */
export async function commitBackfill(scope: CallScope, backfillId: string): Promise<Backfill> {
  const { repositories } = scope;
  const backfill = await repositories.backfills.get(scope.accountId, backfillId);
  if (!backfill) throw notFound("Backfill");
  const once = "is committed: a backfill is committed once";
  if (backfill.status !== "OPEN") throw notOpen(backfill.status, once);
  const committedAt = new Date();
  if (await repositories.backfills.claimCommit(backfill, committedAt)) {
    return (await commitHeld(scope, backfill, committedAt)).backfill;
  }
  const first = await repositories.backfills.commitClaim(backfill);
  if (first) await commitHeld(scope, backfill, first.committedAt);
  throw notOpen("PENDING", once);
}
