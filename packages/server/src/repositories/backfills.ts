import type {
  AuditActor,
  Backfill,
  BackfillCreate,
  BackfillListQuery,
  BackfillMode,
  BackfillStatus,
  EventInput,
} from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import { wonInsert, wonInserts } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { resolveIdCursor } from "../db/pagination.js";

/** Stored counts: `reverted` and `restored` absent on backfills stored before reverts were (none reverted). */
type Counts = Omit<Backfill["counts"], "reverted" | "restored"> &
  Partial<Pick<Backfill["counts"], "reverted" | "restored">>;

/** An event of a window by its place in the (timestamp, _id) order: where the next page of a walk starts. */
type WindowCursor = { timestamp: Date; id: string };

/**
 * A backfill's revert (POST /backfills/{backfillId}/revert), with the worker's progress: `pages` the pages of the
 * backfill's events voided, `restoreAfter` the last event of the window a restore step read, `steps` the steps
 * stored (what a step's write is guarded by).
 */
interface RevertDoc {
  requestedAt: Date;
  requestedBy: AuditActor;
  pages: number;
  restoreAfter: WindowCursor | null;
  steps: number;
  completedAt: Date | null;
}

/** The claim of a backfill's revert: `_id` the backfill's id, so of two reverts one insert wins. */
interface RevertClaimDoc {
  _id: string;
  accountId: string;
  requestedAt: Date;
  requestedBy: AuditActor;
}

/**
 * An event an OPEN backfill holds (`POST /events` with its `backfillId`): `_id` `<backfill>/<ref>`, so a ref is held
 * once however often it is sent; counted nowhere until the commit copies the held events onto the backfill.
 */
interface HeldEventDoc {
  _id: string;
  accountId: string;
  eventJson: string;
}

/** The claim of a backfill's commit: `_id` the backfill's id, so of two commits one insert wins. */
/**
 * A backfill's commit claim (`_id` the backfill), and beside it the events its commit takes (`_id` `<backfill>/events`,
 * `eventsJson`): each decided by its unique insert.
 */
interface CommitClaimDoc {
  _id: string;
  accountId: string;
  committedAt: Date;
  eventsJson?: string;
}

/** The `_id`s of a backfill's held events: `<backfill>/` then the ref (`0` is the character after `/`). */
const heldRange = (backfillId: string) => ({ $gt: `${backfillId}/`, $lt: `${backfillId}0` });

/**
 * A backfill (`POST /backfills`): its events kept as sent (JSON text: their `data` keys are the caller's, never field
 * paths) until the upkeep worker has stored them, a page a step (services/backfills.ts). The progress is stored after
 * each step: `replaceAfter` the last event of the window a REPLACE step read, `pages` the pages of events stored.
 */
interface BackfillDoc {
  _id: ObjectId;
  accountId: string;
  customerId: string | null;
  /** The customer's event aliases when opened: the scope a REPLACE voids (null: every customer's events). */
  aliases: string[] | null;
  meterKey: string;
  eventName: string;
  from: Date;
  to: Date;
  mode: BackfillMode;
  status: BackfillStatus;
  eventsJson: string;
  counts: Counts;
  replaceAfter: WindowCursor | null;
  pages: number;
  failure: string | null;
  /** Who opened it (the voids of a REPLACE name them). */
  openedBy: AuditActor;
  createdAt: Date;
  /** When it was committed (its events sent with it: when opened); null while OPEN. Absent before commits were. */
  committedAt?: Date | null;
  completedAt: Date | null;
  /** Absent on backfills stored before reverts were: none asked for. */
  revert?: RevertDoc | null;
}

export type StoredBackfill = Omit<BackfillDoc, "_id" | "eventsJson"> & { id: string; events: EventInput[] };
/** What a step changes: the progress, the counts, and (once) the end. */
export type BackfillStep = Partial<
  Pick<StoredBackfill, "status" | "counts" | "replaceAfter" | "pages" | "failure" | "completedAt" | "revert">
>;
export type StoredRevert = RevertDoc;

const OPEN: BackfillStatus[] = ["PENDING", "REPLACING", "INGESTING", "REVERTING"];

const toStored = ({ _id, eventsJson, ...fields }: BackfillDoc): StoredBackfill => ({
  id: _id.toHexString(),
  ...fields,
  events: JSON.parse(eventsJson) as EventInput[],
});

export const presentBackfill = (stored: StoredBackfill): Backfill => ({
  id: stored.id,
  customerId: stored.customerId,
  meterKey: stored.meterKey,
  eventName: stored.eventName,
  from: iso(stored.from),
  to: iso(stored.to),
  mode: stored.mode,
  status: stored.status,
  counts: { ...stored.counts, reverted: stored.counts.reverted ?? 0, restored: stored.counts.restored ?? 0 },
  failure: stored.failure,
  createdAt: iso(stored.createdAt),
  committedAt: stored.status === "OPEN" ? null : iso(stored.committedAt ?? stored.createdAt),
  completedAt: stored.completedAt && iso(stored.completedAt),
  revert: stored.revert
    ? {
        requestedAt: iso(stored.revert.requestedAt),
        requestedBy: stored.revert.requestedBy,
        completedAt: stored.revert.completedAt && iso(stored.revert.completedAt),
      }
    : null,
});

/** The events a backfill's steps read: its meter's event name in [from, to), under its customer's aliases or any. */
export const windowOf = (backfill: StoredBackfill) => ({
  name: backfill.eventName,
  aliases: backfill.aliases ?? undefined,
  from: backfill.from,
  to: backfill.to,
});

export interface NewBackfill {
  input: BackfillCreate;
  customerId: string | null;
  aliases: string[] | null;
  eventName: string;
  openedBy: AuditActor;
}

export function createBackfillRepository(db: Db) {
  const backfills = db.collection<BackfillDoc>("backfills");
  const revertClaims = db.collection<RevertClaimDoc>("backfill_reverts");
  const held = db.collection<HeldEventDoc>("backfill_events");
  const commitClaims = db.collection<CommitClaimDoc>("backfill_commits");
  return {
    async ensureIndexes() {
      // An account's backfills, newest first (GET /backfills).
      await backfills.createIndex({ accountId: 1, _id: -1 });
      // The worker's walk over backfills not done yet.
      await backfills.createIndex({ status: 1 });
      // An OPEN backfill's held events and their count: `_id`s `<backfill>/<ref>`, a range under the account.
      await held.createIndex({ accountId: 1, _id: 1 });
    },

    async create(
      accountId: string,
      { input, customerId, aliases, eventName, openedBy }: NewBackfill,
    ): Promise<StoredBackfill> {
      const events = input.events ?? [];
      const createdAt = new Date();
      const doc: BackfillDoc = {
        _id: new ObjectId(),
        accountId,
        customerId,
        aliases,
        meterKey: input.meterKey,
        eventName,
        from: new Date(input.from),
        to: new Date(input.to),
        mode: input.mode,
        status: input.events ? "PENDING" : "OPEN",
        eventsJson: JSON.stringify(events),
        counts: { events: events.length, replaced: 0, stored: 0, duplicates: 0, reverted: 0, restored: 0 },
        replaceAfter: null,
        pages: 0,
        failure: null,
        openedBy,
        createdAt,
        committedAt: input.events ? createdAt : null,
        completedAt: null,
        revert: null,
      };
      await backfills.insertOne(doc);
      return toStored(doc);
    },

    /** Holds events apart for an OPEN backfill, once per ref: the refs held already (or repeated) are duplicates. */
    async hold(from: StoredBackfill, events: EventInput[]) {
      const docs = events.map((event) => ({
        _id: `${from.id}/${event.ref}`,
        accountId: from.accountId,
        eventJson: JSON.stringify(event),
      }));
      const won = await wonInserts(held.insertMany(docs, { ordered: false }), docs.length);
      return { stored: won.size, duplicates: events.filter((_, index) => !won.has(index)).map(({ ref }) => ref) };
    },

    /** How many events an OPEN backfill holds: all, or those of these refs. */
    heldCount: (from: StoredBackfill, refs?: string[]) =>
      held.countDocuments({
        accountId: from.accountId,
        _id: refs ? { $in: refs.map((ref) => `${from.id}/${ref}`) } : heldRange(from.id),
      }),

    /** The events an OPEN backfill holds, by ref (at most `limit`). */
    async held(from: StoredBackfill, limit: number): Promise<EventInput[]> {
      const filter = { accountId: from.accountId, _id: heldRange(from.id) };
      const docs = await held.find(filter).sort({ _id: 1 }).limit(limit).toArray();
      return docs.map(({ eventJson }) => JSON.parse(eventJson) as EventInput);
    },

    /**
     * Claims the backfill's commit, once: false when it was claimed already (a repeat or another call); then
     * `commitClaim` reads the first.
     */
    claimCommit: (from: StoredBackfill, committedAt: Date) =>
      wonInsert(commitClaims.insertOne({ _id: from.id, accountId: from.accountId, committedAt })),

    async commitClaim(from: StoredBackfill) {
      const claim = await commitClaims.findOne({ _id: from.id });
      return claim && claim.accountId === from.accountId ? claim : undefined;
    },

    /**
     * The events the backfill's commit takes, decided once: `read` (what this call read as held, after the commit's
     * claim) when this call's insert is the first, else the first call's. Every call that finishes or checks the
     * commit then uses the same events, however the held ones grew between their reads.
     */
    async commitEvents(from: StoredBackfill, committedAt: Date, read: EventInput[]): Promise<EventInput[]> {
      const _id = `${from.id}/events`;
      const doc = { _id, accountId: from.accountId, committedAt, eventsJson: JSON.stringify(read) };
      if (await wonInsert(commitClaims.insertOne(doc))) return read;
      const first = await commitClaims.findOne({ _id, accountId: from.accountId });
      if (!first?.eventsJson) throw new Error(`the commit of backfill ${from.id} has no events stored`);
      return JSON.parse(first.eventsJson) as EventInput[];
    },

    /**
     * Marks an OPEN backfill PENDING with the events its commit takes (commitEvents), under its commit's claim: the
     * same values whoever writes them.
     */
    async commit(from: StoredBackfill, committedAt: Date, events: EventInput[]) {
      const filter = { _id: new ObjectId(from.id), accountId: from.accountId, status: "OPEN" as const };
      const set = {
        status: "PENDING" as const,
        committedAt,
        eventsJson: JSON.stringify(events),
        "counts.events": events.length,
      };
      await backfills.updateOne(filter, { $set: set });
    },

    async get(accountId: string, backfillId: string): Promise<StoredBackfill | undefined> {
      const doc = await findOwned(backfills, accountId, toObjectId(backfillId));
      return doc ? toStored(doc) : undefined;
    },

    /** A page of the account's backfills, newest first, after the cursor (the last id received). */
    async list(accountId: string, query: BackfillListQuery): Promise<StoredBackfill[]> {
      const scope = { accountId } as Filter<BackfillDoc>;
      const last = await resolveIdCursor(backfills, scope, query.cursor);
      const filter = last ? { accountId, _id: { $lt: last._id } } : scope;
      const docs = await backfills.find(filter).sort({ _id: -1 }).limit(query.limit).toArray();
      return docs.map(toStored);
    },

    /** Up to `limit` backfills not done yet, oldest first. */
    async open(limit: number): Promise<StoredBackfill[]> {
      const docs = await backfills
        .find({ status: { $in: OPEN } })
        .limit(limit)
        .toArray();
      return docs.map(toStored).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
    },

    /**
     * Stores a step's progress, unless the backfill is past the step already (another instance's step stored it):
     * guarded by the pages, status and revert steps it started from, so a redone step writes the same values.
     */
    async advance(from: StoredBackfill, step: BackfillStep) {
      const filter = {
        _id: new ObjectId(from.id),
        accountId: from.accountId,
        status: from.status,
        pages: from.pages,
        ...(from.revert && { "revert.steps": from.revert.steps }),
      };
      await backfills.updateOne(filter as Filter<BackfillDoc>, { $set: step });
    },

    /**
     * Claims the backfill's revert, once: false when it was claimed already (by a repeat or another call); then
     * `revertClaim` reads the first.
     */
    claimRevert(from: StoredBackfill, claim: { requestedAt: Date; requestedBy: AuditActor }): Promise<boolean> {
      return wonInsert(revertClaims.insertOne({ _id: from.id, accountId: from.accountId, ...claim }));
    },

    async revertClaim(accountId: string, backfillId: string) {
      const claim = await revertClaims.findOne({ _id: backfillId });
      return claim && claim.accountId === accountId ? claim : undefined;
    },

    /**
     * Marks a COMPLETED backfill REVERTING under its revert's claim (the claim's winner, or a later call finishing
     * what a first one claimed and did not mark): the same values whoever writes them.
     */
    async startRevert(from: StoredBackfill, claim: { requestedAt: Date; requestedBy: AuditActor }) {
      const revert: RevertDoc = { ...claim, pages: 0, restoreAfter: null, steps: 0, completedAt: null };
      const filter = { _id: new ObjectId(from.id), accountId: from.accountId, status: "COMPLETED" as const };
      await backfills.updateOne(filter, { $set: { status: "REVERTING", revert } });
      return revert;
    },
  };
}
