import { type Db, ObjectId } from "mongodb";
import { SealedSecretError, type SecretBox } from "../auth/secret-box.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { type ExpiringCollection, ensureExpiryIndexes, purgeExpired } from "../db/expiry.js";
import type { Hooks } from "./hooks.js";

/** How long a key is remembered: a record older than this counts as absent, and is deleted some time later. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How often a request holding a key says it is still running. */
export const IDEMPOTENCY_HEARTBEAT_MS = 5_000;
/**
 * A key with no stored outcome whose holder has not said it is running for this long belongs to a request that
 * stopped (its server died, or its outcome could not be stored): its outcome is unknown, and it is never run again.
 */
export const IDEMPOTENCY_SILENT_AFTER_MS = 30_000;

/** Who holds a key. Its unique `_id` picks the first writer; nothing but the holder's heartbeat ever updates it. */
interface ClaimDoc {
  /** `<accountId>/<key>`: keys are scoped to the account. */
  _id: string;
  /** What the key was first used for: a hash of procedure and canonical input. */
  fingerprint: string;
  /** The request holding the key; its outcome is stored under this id. */
  attempt: ObjectId;
  createdAt: Date;
  /** Last heartbeat of the holder. */
  aliveAt: Date;
  expiresAt: Date;
}

/**
 * The outcome of an attempt, as JSON text (so keys such as `$set` in it stay data) sealed like a webhook signing
 * secret (an answer may hold one: a keyed endpoint creation or rotation), or null when the call failed in a way that
 * may have taken effect. A document of its own, inserted rather than set on the claim: the unique
 * `_id` lets one outcome win, and FerretDB 1.24 scans its collection for every update, not for inserts and `_id`
 * reads, so the path of every keyed request stays on those.
 */
interface OutcomeDoc {
  _id: string;
  outcome: string | null;
  expiresAt: Date;
}

/** A key held by the request that claimed it. */
export interface HeldKey {
  id: string;
  attempt: ObjectId;
}

/** Where the request holding a key stands: running, stopped without an outcome (`unknown`), or done. */
export type KeyState = { state: "running" } | { state: "unknown" } | { state: "done"; outcome: string };
export type Claim = { held: HeldKey } | { existing: { fingerprint: string } & KeyState };

export function createIdempotencyKeyRepository(db: Db, hooks: Hooks, secretBox: SecretBox) {
  const claims = db.collection<ClaimDoc>("idempotencyKeys");
  const outcomes = db.collection<OutcomeDoc>("idempotencyOutcomes");
  const expiring: ExpiringCollection[] = [db.collection("idempotencyKeys"), db.collection("idempotencyOutcomes")];

  /** What a stored claim stands for at `now`; undefined once it is forgotten (past retention, nothing running). */
  async function stateOf(claim: ClaimDoc, now: number): Promise<KeyState | undefined> {
    const stored = await outcomes.findOne({ _id: claim.attempt.toHexString() });
    const running = !stored && now - claim.aliveAt.getTime() < IDEMPOTENCY_SILENT_AFTER_MS;
    if (now - claim.createdAt.getTime() >= IDEMPOTENCY_RETENTION_MS) return running ? { state: "running" } : undefined;
    if (stored) return stored.outcome === null ? { state: "unknown" } : keptOutcome(stored._id, stored.outcome);
    return running ? { state: "running" } : { state: "unknown" };
  }

  /** A stored answer, opened; one sealed with a key WEBHOOK_SECRET_KEYS no longer lists cannot be told: unknown. */
  function keptOutcome(id: string, sealed: string): KeyState {
    try {
      return { state: "done", outcome: secretBox.open(sealed, id) };
    } catch (error) {
      if (error instanceof SealedSecretError) return { state: "unknown" };
      throw error;
    }
  }

  /** Inserts the attempt's outcome; a duplicate means an earlier try did store it (its answer was lost). */
  async function storeOutcome(held: HeldKey, outcome: string | null) {
    await hooks("idempotency.complete", held.id);
    try {
      const expiresAt = new Date(Date.now() + IDEMPOTENCY_RETENTION_MS);
      const _id = held.attempt.toHexString();
      await outcomes.insertOne({ _id, outcome: outcome === null ? null : secretBox.seal(outcome, _id), expiresAt });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  return {
    // TTL indexes on MongoDB; on FerretDB, plain ones for the purge job (db/expiry.ts).
    ensureIndexes: () => ensureExpiryIndexes(db, expiring),

    /** Deletes records past their `expiresAt` (bounded): the purge job's step, on engines without TTL indexes. */
    purgeExpired: (now: Date) => purgeExpired(expiring, now),

    /**
     * Claims a key for a request by inserting its record: the unique `_id` lets exactly one request win. A
     * loser gets the winner's fingerprint and state. Only a record past its retention, whose holder is not
     * running, counts as absent: a key is never taken from a request that may still run or may have taken effect.
     */
    async claim(accountId: string, key: string, fingerprint: string): Promise<Claim> {
      const id = `${accountId}/${key}`;
      for (;;) {
        const now = new Date();
        const attempt = new ObjectId();
        try {
          const expiresAt = new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS);
          await claims.insertOne({ _id: id, fingerprint, attempt, createdAt: now, aliveAt: now, expiresAt });
          return { held: { id, attempt } };
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error;
        }
        const existing = await claims.findOne({ _id: id });
        if (!existing) continue; // released meanwhile: race for it again
        const state = await stateOf(existing, now.getTime());
        if (state) return { existing: { fingerprint: existing.fingerprint, ...state } };
        // Forgotten: remove exactly the record seen (not a newer one), then race for the key again.
        await claims.deleteOne({ _id: id, attempt: existing.attempt });
      }
    },

    /**
     * Says every IDEMPOTENCY_HEARTBEAT_MS that the holder still runs (and keeps its record from expiring), until the
     * returned function is called. Only the holder updates its claim, so FerretDB's unisolated updates lose nothing.
     * A failed beat is not retried: the next one comes soon, and a holder silent for long counts as stopped.
     */
    keepAlive(held: HeldKey): () => void {
      const beat = () => {
        const now = Date.now();
        const $set = { aliveAt: new Date(now), expiresAt: new Date(now + IDEMPOTENCY_RETENTION_MS) };
        claims.updateOne({ _id: held.id, attempt: held.attempt }, { $set }).catch(() => {});
      };
      const timer = setInterval(beat, IDEMPOTENCY_HEARTBEAT_MS);
      timer.unref();
      return () => clearInterval(timer);
    },

    /** Stores the outcome of the attempt that holds the key, replayed to every repeat. */
    complete: (held: HeldKey, outcome: unknown) => storeOutcome(held, JSON.stringify(outcome)),

    /** Records that the attempt failed in a way that may have taken effect: repeats learn its outcome is unknown. */
    markUnknown: (held: HeldKey) => storeOutcome(held, null),

    /** Frees the key of an attempt that took no effect and whose answer is not kept, so that it can be sent again. */
    async release(held: HeldKey) {
      await claims.deleteOne({ _id: held.id, attempt: held.attempt });
    },
  };
}
export type IdempotencyKeyRepository = ReturnType<typeof createIdempotencyKeyRepository>;
