import { createHash } from "node:crypto";
import { ObjectId, type Db } from "mongodb";
import type { NewToken, TokenInfo, TokenScope } from "@billing/shared";
import { generateToken, hashToken } from "../auth/tokens.js";
import { iso, toObjectId } from "../db/ids.js";
import { isDuplicateKeyError } from "../errors.js";

interface TokenDoc {
  _id: ObjectId;
  accountId: string;
  /** SHA-256 of the token: the secret itself is never stored. */
  hash: string;
  /** Absent on tokens made before scopes existed: they had full access, so they count as `write`. */
  scope?: TokenScope;
  createdAt: Date;
  /** Refreshed at most once a minute (see LAST_USED_RESOLUTION_MS). */
  lastUsedAt?: Date | null;
  /** When the token stops working: null while live; in the future during a rotation's grace period. */
  revokedAt: Date | null;
}

/** Who is calling: what a live token grants. */
export interface TokenHolder {
  tokenId: string;
  accountId: string;
  scope: TokenScope;
}

/**
 * `lastUsedAt` is written only when the stored value is older than this, so a busy token costs one write a
 * minute, not one per request. The value is read from the token's own document: no per-process state.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

const isLive = (doc: TokenDoc, now: Date) => doc.revokedAt === null || doc.revokedAt > now;
const liveFilter = (now: Date) => ({ $or: [{ revokedAt: null }, { revokedAt: { $gt: now } }] });

/**
 * The id a token's successor gets when it is rotated: derived from the old id, so a second rotation of the
 * same token collides on `_id` and each token has at most one successor, whatever the concurrency.
 */
function successorId(tokenId: ObjectId): ObjectId {
  return new ObjectId(createHash("sha256").update(`successor-of/${tokenId.toHexString()}`).digest().subarray(0, 12));
}

const toTokenInfo = (doc: TokenDoc): TokenInfo => ({
  id: doc._id.toHexString(),
  scope: doc.scope ?? "write",
  createdAt: iso(doc.createdAt),
  lastUsedAt: doc.lastUsedAt ? iso(doc.lastUsedAt) : null,
  revokedAt: doc.revokedAt ? iso(doc.revokedAt) : null,
});

export function createTokenRepository(db: Db) {
  const tokens = db.collection<TokenDoc>("tokens");

  async function insert(accountId: string, scope: TokenScope, _id = new ObjectId()): Promise<NewToken> {
    const token = generateToken();
    await tokens.insertOne({ _id, accountId, hash: hashToken(token), scope, createdAt: new Date(), lastUsedAt: null, revokedAt: null });
    return { tokenId: _id.toHexString(), token };
  }

  return {
    async ensureIndexes() {
      await tokens.createIndex({ hash: 1 }, { unique: true });
      await tokens.createIndex({ accountId: 1, createdAt: 1 });
    },

    create: (accountId: string, scope: TokenScope = "write"): Promise<NewToken> => insert(accountId, scope),

    /** The holder of a live token, read from the database on every call: revocation is immediate. */
    async authenticate(token: string): Promise<TokenHolder | undefined> {
      const now = new Date();
      const doc = await tokens.findOne({ hash: hashToken(token) });
      if (!doc || !isLive(doc, now)) return undefined;
      if (!doc.lastUsedAt || now.getTime() - doc.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
        // Concurrent refreshes all write about the same moment: last writer wins, which is the meaning intended.
        await tokens.updateOne({ _id: doc._id }, { $set: { lastUsedAt: now } });
      }
      return { tokenId: doc._id.toHexString(), accountId: doc.accountId, scope: doc.scope ?? "write" };
    },

    /** Every token of an account, revoked ones included, oldest first; secrets are never part of it. */
    async list(accountId: string): Promise<TokenInfo[]> {
      return (await tokens.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray()).map(toTokenInfo);
    },

    /**
     * A new token with the same account and scope; the old one stops working after `graceSeconds` (0: at
     * once). Undefined when no live token has that id; "already-rotated" when the token has a successor.
     */
    async rotate(tokenId: string, graceSeconds: number): Promise<NewToken | "already-rotated" | undefined> {
      const _id = toObjectId(tokenId);
      const now = new Date();
      const old = _id && (await tokens.findOne({ _id, ...liveFilter(now) }));
      if (!old) return undefined;
      let successor: NewToken;
      try {
        // The successor exists before the old token is revoked: a crash in between leaves two live tokens, never none.
        successor = await insert(old.accountId, old.scope ?? "write", successorId(old._id));
      } catch (error) {
        if (isDuplicateKeyError(error)) return "already-rotated";
        throw error;
      }
      const revokedAt = new Date(now.getTime() + graceSeconds * 1000);
      await tokens.updateOne({ _id: old._id, ...liveFilter(now) }, { $set: { revokedAt } });
      return successor;
    },

    /** Revokes a live token (or one in a grace period) at once; undefined when no live token has that id. */
    async revoke(tokenId: string): Promise<{ revokedAt: Date } | undefined> {
      const _id = toObjectId(tokenId);
      if (!_id) return undefined;
      const revokedAt = new Date();
      const result = await tokens.updateOne({ _id, ...liveFilter(revokedAt) }, { $set: { revokedAt } });
      return result.modifiedCount === 1 ? { revokedAt } : undefined;
    },
  };
}
export type TokenRepository = ReturnType<typeof createTokenRepository>;
