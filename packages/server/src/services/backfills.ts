import type { AuditActor, Backfill, BackfillCreate, BackfillListQuery } from "@billing/shared";
import { testClockOf } from "../billing-clock.js";
import { badRequest, DomainError } from "../domain/errors.js";
import {
  BACKFILL_EVENTS_PER_STEP,
  BACKFILL_REPLACED_PER_STEP,
  backfillEventIssues,
  backfillPage,
  replacedReason,
} from "../domain/usage/backfill.js";
import type { Logger } from "../logger.js";
import { type BackfillStep, presentBackfill, type StoredBackfill, windowOf } from "../repositories/backfills.js";
import type { Repositories } from "../repositories/index.js";
import { revertStep } from "./backfill-reverts.js";
import type { CallScope } from "./call-scope.js";
import { voidByBackfill } from "./event-voids.js";
import { ingestEvents, refuseAfterClock } from "./ingestion.js";
import { publishChange } from "./webhook-events.js";

/** Backfills the upkeep worker steps per tick (each one step: a page of voids or of events). */
export const BACKFILLS_PER_TICK = 2;

/**
 * `POST /backfills`: checks the scope (the meter, the customer, each event in it: else 400 naming the field) and
 * stores the backfill PENDING, its events kept apart until the upkeep worker stores them (stepBackfills); without
 * events, OPEN: they are held as `POST /events` sends them with its id, until its commit (backfill-commits.ts).
 * Nothing is voided or stored by the call itself.
 */
export async function createBackfill(
  { repositories, accountId }: CallScope,
  input: BackfillCreate,
  openedBy: AuditActor,
): Promise<Backfill> {
  const meter = await repositories.meters.getByKey(accountId, input.meterKey);
  if (!meter) throw badRequest("No meter has this key", [{ path: "meterKey", message: "names no meter" }]);
  const customer =
    input.customerId === undefined ? undefined : await repositories.customers.get(accountId, input.customerId);
  if (input.customerId !== undefined && !customer) {
    throw badRequest("No customer has this id", [{ path: "customerId", message: "names no customer" }]);
  }
  const aliases = customer ? await repositories.customers.eventAliasesOf(accountId, customer) : null;
  const scope = { eventName: meter.eventName, from: new Date(input.from), to: new Date(input.to), aliases };
  const events = input.events ?? [];
  const issues = backfillEventIssues(events, scope);
  if (issues.length > 0) throw badRequest("Events outside the backfill's scope", issues);
  refuseAfterClock(
    testClockOf(accountId),
    events.map((event) => event.timestamp),
    (index) => `events.${index}.timestamp`,
  );
  const stored = await repositories.backfills.create(accountId, {
    input,
    customerId: customer?.id ?? null,
    aliases,
    eventName: meter.eventName,
    openedBy,
  });
  return presentBackfill(stored);
}

/** A REPLACE step: voids a page of the window's events stored before the backfill, through the void path. */
async function replaceStep(scope: CallScope, backfill: StoredBackfill): Promise<BackfillStep> {
  const { events, next } = await scope.repositories.events.ofWindow(
    backfill.accountId,
    windowOf(backfill),
    backfill.replaceAfter ?? undefined,
    BACKFILL_REPLACED_PER_STEP,
  );
  // Not the backfill's own events (stored after it was opened), even on a step redone meanwhile.
  const toVoid = events.filter(({ voidReason, createdAt }) => !voidReason && createdAt < backfill.createdAt);
  let replaced = 0;
  for (const { eventId } of toVoid) {
    if (await voidByBackfill(scope, eventId, replacedReason(backfill.id), backfill.openedBy)) replaced += 1;
  }
  const counts = { ...backfill.counts, replaced: backfill.counts.replaced + replaced };
  return { status: next ? "REPLACING" : "INGESTING", replaceAfter: next ?? null, counts };
}

/** An ingest step: stores the next page of the backfill's events (refs keep a redone page from storing twice). */
async function ingestStep(scope: CallScope, backfill: StoredBackfill): Promise<BackfillStep> {
  const page = backfillPage(backfill.events, backfill.pages);
  const result = page.length > 0 ? await ingestEvents(scope, page, backfill.id) : { stored: 0, duplicates: [] };
  const { stored, duplicates } = backfill.counts;
  const counts = {
    ...backfill.counts,
    stored: stored + result.stored,
    duplicates: duplicates + result.duplicates.length,
  };
  const done = (backfill.pages + 1) * BACKFILL_EVENTS_PER_STEP >= backfill.events.length;
  return {
    status: done ? "COMPLETED" : "INGESTING",
    pages: backfill.pages + 1,
    counts,
    ...(done && { completedAt: new Date() }),
  };
}

/** The change each end of a backfill announces. */
const ENDS = {
  COMPLETED: "backfill.completed",
  FAILED: "backfill.failed",
  REVERTED: "backfill.reverted",
} as const;

/** The step a backfill takes next by its status: undefined when the step found it must wait (tried next tick). */
function nextStep(scope: CallScope, backfill: StoredBackfill): Promise<BackfillStep | undefined> {
  if (backfill.status === "REVERTING") return revertStep(scope, backfill);
  const status = backfill.status === "PENDING" && backfill.mode === "ADD" ? "INGESTING" : backfill.status;
  return status === "INGESTING" ? ingestStep(scope, backfill) : replaceStep(scope, backfill);
}

/**
 * One step of a backfill (the upkeep worker's): PENDING → REPLACING (REPLACE) → INGESTING → COMPLETED, a bounded page
 * a step, the progress stored after each (advance: a step redone after a crash reads the same page again, and voids
 * and refs make it change nothing); a revert's, REVERTING → REVERTED (backfill-reverts.ts). A refusal of the usage (a
 * DomainError: e.g. a test clock moved back) ends it FAILED; any other error leaves it for the next tick.
 * `backfill.completed` / `backfill.failed` / `backfill.reverted` once.
 */
export async function stepBackfill(repositories: Repositories, log: Logger, backfill: StoredBackfill) {
  const scope: CallScope = { repositories, accountId: backfill.accountId, log };
  let step: BackfillStep | undefined;
  try {
    step = await nextStep(scope, backfill);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    step = { status: "FAILED", failure: error.message, completedAt: new Date() };
  }
  if (!step) return presentBackfill(backfill);
  await repositories.backfills.advance(backfill, step);
  const after = presentBackfill({ ...backfill, ...step });
  if (after.status === "COMPLETED" || after.status === "FAILED" || after.status === "REVERTED") {
    await publishChange(repositories, backfill.accountId, log, { type: ENDS[after.status], data: after });
  }
  return after;
}

/** The worker's step: one step of each of up to BACKFILLS_PER_TICK open backfills, oldest first. */
export async function stepBackfills(repositories: Repositories, log: Logger, limit = BACKFILLS_PER_TICK) {
  const open = await repositories.backfills.open(limit);
  for (const backfill of open) await stepBackfill(repositories, log, backfill);
  return open.length;
}

/** A backfill as shown: while OPEN, `counts.events` is what it holds so far (counted, never stored on it). */
async function shown(repositories: Repositories, stored: StoredBackfill) {
  if (stored.status !== "OPEN") return presentBackfill(stored);
  const events = await repositories.backfills.heldCount(stored);
  return presentBackfill({ ...stored, counts: { ...stored.counts, events } });
}

export async function readBackfill({ repositories, accountId }: CallScope, backfillId: string) {
  const stored = await repositories.backfills.get(accountId, backfillId);
  return stored && shown(repositories, stored);
}

export async function listBackfills({ repositories, accountId }: CallScope, query: BackfillListQuery) {
  const stored = await repositories.backfills.list(accountId, query);
  return { backfills: await Promise.all(stored.map((backfill) => shown(repositories, backfill))) };
}
