import type { AuditActor, AuditEntry, AuditLogQuery, AuditResource } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import { type ExpiringCollection, ensureExpiryIndexes, purgeExpired } from "../db/expiry.js";
import { iso } from "../db/ids.js";
import { NEWEST_FIRST } from "../db/pagination.js";
import type { Logger } from "../logger.js";

/** How long entries are kept when AUDIT_RETENTION_DAYS is not set. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** One entry as the service appends it; the repository adds its id, time and expiry. */
export interface AuditRecord {
  accountId: string;
  actor: AuditActor;
  action: string;
  resource: AuditResource | null;
  references: AuditResource[];
  changes: string[];
  requestId: string | null;
  idempotencyKey: string | null;
}

type AuditDoc = AuditRecord & {
  _id: ObjectId;
  at: Date;
  /** Every id the entry is about (its resource's and its references'): what `resourceId` finds it by. */
  ids: string[];
  /** The token id, or the actor's type when no token acted: what `actor` finds it by. */
  actorKey: string;
  expiresAt: Date;
};

const DAY_MS = 86_400_000;
const APPEND_ATTEMPTS = 3;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const toEntry = ({ _id, at, actor, action, resource, references, changes, requestId, idempotencyKey }: AuditDoc) =>
  ({
    id: _id.toHexString(),
    at: iso(at),
    actor,
    action,
    resource,
    references,
    changes,
    requestId,
    idempotencyKey,
  }) satisfies AuditEntry;

/**
 * An `_id` made at most a second before (or after) its entry's `at`: ObjectIds count whole seconds, and the id is
 * taken just after `at`. A time window read by `_id` (the index every filter ends with) widens by a second on each
 * side, and `at` itself then decides exactly.
 */
const idBound = (time: string, widenBySeconds: number) =>
  ObjectId.createFromTime(Math.floor(Date.parse(time) / 1000) + widenBySeconds);

/**
 * The audit log: insert-only. Entries are never updated and no call deletes them; they expire after the retention
 * (a TTL index on MongoDB, the purge job elsewhere: db/expiry.ts).
 */
export function createAuditLogRepository(db: Db, retentionDays = DEFAULT_AUDIT_RETENTION_DAYS) {
  const entries = db.collection<AuditDoc>("auditLog");
  const expiring = [entries as unknown as ExpiringCollection];

  async function append(record: AuditRecord, at = new Date()): Promise<AuditEntry> {
    const ids = [...new Set([record.resource, ...record.references].flatMap((item) => (item ? [item.id] : [])))];
    const doc: AuditDoc = {
      ...record,
      _id: new ObjectId(),
      at,
      ids,
      actorKey: record.actor.tokenId ?? record.actor.type,
      expiresAt: new Date(at.getTime() + retentionDays * DAY_MS),
    };
    await entries.insertOne(doc);
    return toEntry(doc);
  }

  return {
    async ensureIndexes() {
      // Newest first in the account, and within a time window: read by `_id` (see idBound), `at` checked in the index.
      await entries.createIndex({ accountId: 1, _id: -1, at: 1 });
      // The entries about one resource, and those of one actor.
      await entries.createIndex({ accountId: 1, ids: 1, _id: -1 });
      await entries.createIndex({ accountId: 1, actorKey: 1, _id: -1 });
      // The entries of one procedure (e.g. the console's older billing runs, past the newest page of changes), also
      // within a time window (`at` checked in the index, as above).
      await entries.createIndex({ accountId: 1, action: 1, _id: -1, at: 1 });
      await ensureExpiryIndexes(db, expiring);
    },

    /**
     * Appends the entry of a change that took effect, trying again a few times so that a brief database fault loses
     * nothing. It never throws: the change is made and its caller gets its answer; an entry that could not be
     * written is logged with all it would have held (docs/decisions.md, "The audit log").
     */
    async record(record: AuditRecord, log: Logger): Promise<void> {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return void (await append(record));
        } catch (error) {
          if (attempt === APPEND_ATTEMPTS) return log.error({ err: error, audit: record }, "audit entry not written");
          await pause(100 * attempt);
        }
      }
    },

    append,

    /** One page, newest first; bounded by `limit` (no count: a log only grows). */
    async list(accountId: string, query: AuditLogQuery) {
      const { resourceId, actor, action, from, to, limit, cursor } = query;
      // Below the cursor's entry and the window's end, whichever is lower: ids in hex order are in time order.
      const below = [cursor && (NEWEST_FIRST.decode(cursor) as ObjectId), to && idBound(to, 2)]
        .filter((id): id is ObjectId => id instanceof ObjectId)
        .sort((a, b) => a.toHexString().localeCompare(b.toHexString()))[0];
      const idRange = {
        ...(from === undefined ? {} : { $gte: idBound(from, -1) }),
        ...(below === undefined ? {} : { $lt: below }),
      };
      const atRange = {
        ...(from === undefined ? {} : { $gte: new Date(from) }),
        ...(to === undefined ? {} : { $lt: new Date(to) }),
      };
      const filter: Filter<AuditDoc> = {
        accountId,
        ...(resourceId === undefined ? {} : { ids: resourceId }),
        ...(actor === undefined ? {} : { actorKey: actor }),
        ...(action === undefined ? {} : { action }),
        ...(Object.keys(idRange).length === 0 ? {} : { _id: idRange }),
        ...(Object.keys(atRange).length === 0 ? {} : { at: atRange }),
      };
      const docs = await entries
        .find(filter)
        .sort({ _id: -1 })
        .limit(limit + 1)
        .toArray();
      const hasMore = docs.length > limit;
      const page = hasMore ? docs.slice(0, limit) : docs;
      const last = page.at(-1);
      return {
        entries: page.map(toEntry),
        hasMore,
        ...(hasMore && last ? { nextCursor: NEWEST_FIRST.encode(last._id) } : {}),
      };
    },

    purgeExpired: (now: Date) => purgeExpired(expiring, now),
  };
}

export type AuditLogRepository = ReturnType<typeof createAuditLogRepository>;
