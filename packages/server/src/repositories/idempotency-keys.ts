import { ObjectId, type Db } from "mongodb";
import { deleteExpired, type ExpiringCollection } from "../db/expiry.js";
import { isDuplicateKeyError } from "../errors.js";
import type { Hooks } from "./hooks.js";

/** How long a key is remembered: a record older than this counts as absent, and is deleted some time later. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A key still in progress after this long belongs to a request whose server died: a retry may take it over. */
export const IDEMPOTENCY_ABANDONED_AFTER_MS = 10 * 60 * 1000;
const SWEEP_PERIOD_MS = 60 * 60 * 1000;

/** Who holds a key. Its unique `_id` picks the first writer. */
interface ClaimDoc {
  /** `<accountId>/<key>`: keys are scoped to the account. */
  _id: string;
  /** What the key was first used for: a hash of procedure and canonical input. */
  fingerprint: string;
  /** The request holding the key; its outcome is stored under this id. */
  attempt: ObjectId;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * The outcome of an attempt, as JSON text (so keys such as `$set` in it stay data). A document of its own,
 * inserted rather than set on the claim: FerretDB 1.24 scans its collection for every update, not for inserts
 * and `_id` reads, so the path of every keyed request stays on those.
 */
interface OutcomeDoc {
  _id: string;
  outcome: string;
  expiresAt: Date;
}

export type KeyRecord = { fingerprint: string; outcome: string | null };
export type Claim = { claimed: ObjectId } | { existing: KeyRecord };

export function createIdempotencyKeyRepository(db: Db, hooks: Hooks) {
  const claims = db.collection<ClaimDoc>("idempotencyKeys");
  const outcomes = db.collection<OutcomeDoc>("idempotencyOutcomes");
  const expiring: ExpiringCollection[] = [db.collection("idempotencyKeys"), db.collection("idempotencyOutcomes")];

  return {
    async ensureIndexes() {
      await Promise.all([claims.createIndex({ expiresAt: 1 }), outcomes.createIndex({ expiresAt: 1 })]);
    },

    /**
     * Claims a key for a request by inserting its record: the unique `_id` lets exactly one request win. A
     * loser gets the winner's fingerprint and outcome (null while in progress). A record past its age (expired,
     * or abandoned in progress) counts as absent.
     */
    async claim(accountId: string, key: string, fingerprint: string): Promise<Claim> {
      const _id = `${accountId}/${key}`;
      for (;;) {
        const now = new Date();
        const attempt = new ObjectId();
        try {
          await claims.insertOne({ _id, fingerprint, attempt, createdAt: now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS) });
          await deleteExpired(expiring, SWEEP_PERIOD_MS);
          return { claimed: attempt };
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
        }
        const existing = await claims.findOne({ _id });
        if (!existing) continue; // released meanwhile: race for it again
        const age = now.getTime() - existing.createdAt.getTime();
        const stored = age < IDEMPOTENCY_RETENTION_MS ? await outcomes.findOne({ _id: existing.attempt.toHexString() }) : null;
        if (stored) return { existing: { fingerprint: existing.fingerprint, outcome: stored.outcome } };
        if (age < IDEMPOTENCY_ABANDONED_AFTER_MS) return { existing: { fingerprint: existing.fingerprint, outcome: null } };
        // Expired, or abandoned: remove exactly the record seen (not a newer one), then race for the key again.
        await claims.deleteOne({ _id, attempt: existing.attempt });
      }
    },

    /** Stores the outcome of the attempt that claimed the key. */
    async complete(attempt: ObjectId, outcome: unknown, id = "") {
      await hooks("idempotency.complete", id);
      const expiresAt = new Date(Date.now() + IDEMPOTENCY_RETENTION_MS);
      await outcomes.insertOne({ _id: attempt.toHexString(), outcome: JSON.stringify(outcome), expiresAt });
    },

    /** Frees the key of an attempt whose outcome is not kept, so that the request can be sent again. */
    async release(accountId: string, key: string, attempt: ObjectId) {
      await claims.deleteOne({ _id: `${accountId}/${key}`, attempt });
    },
  };
}
export type IdempotencyKeyRepository = ReturnType<typeof createIdempotencyKeyRepository>;
