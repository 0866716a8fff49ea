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
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { resolveIdCursor } from "../db/pagination.js";

type Counts = Backfill["counts"];

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
  replaceAfter: { timestamp: Date; id: string } | null;
  pages: number;
  failure: string | null;
  /** Who opened it (the voids of a REPLACE name them). */
  openedBy: AuditActor;
  createdAt: Date;
  completedAt: Date | null;
}

export type StoredBackfill = Omit<BackfillDoc, "_id" | "eventsJson"> & { id: string; events: EventInput[] };
/** What a step changes: the progress, the counts, and (once) the end. */
export type BackfillStep = Partial<
  Pick<StoredBackfill, "status" | "counts" | "replaceAfter" | "pages" | "failure" | "completedAt">
>;

const OPEN: BackfillStatus[] = ["PENDING", "REPLACING", "INGESTING"];

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
  counts: stored.counts,
  failure: stored.failure,
  createdAt: iso(stored.createdAt),
  completedAt: stored.completedAt && iso(stored.completedAt),
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
  return {
    async ensureIndexes() {
      // An account's backfills, newest first (GET /backfills).
      await backfills.createIndex({ accountId: 1, _id: -1 });
      // The worker's walk over backfills not done yet.
      await backfills.createIndex({ status: 1 });
    },

    async create(
      accountId: string,
      { input, customerId, aliases, eventName, openedBy }: NewBackfill,
    ): Promise<StoredBackfill> {
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
        status: "PENDING",
        eventsJson: JSON.stringify(input.events),
        counts: { events: input.events.length, replaced: 0, stored: 0, duplicates: 0 },
        replaceAfter: null,
        pages: 0,
        failure: null,
        openedBy,
        createdAt: new Date(),
        completedAt: null,
      };
      await backfills.insertOne(doc);
      return toStored(doc);
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
     * guarded by the pages and status it started from, so a redone step writes the same values.
     */
    async advance(from: StoredBackfill, step: BackfillStep) {
      const filter = { _id: new ObjectId(from.id), accountId: from.accountId, status: from.status, pages: from.pages };
      await backfills.updateOne(filter, { $set: step });
    },
  };
}
