import { createHash } from "node:crypto";
import type { NewToken, TokenInfo, TokenScope } from "@billing/shared";
import { type Db, ObjectId } from "mongodb";
import { generateToken, hashToken } from "../auth/tokens.js";
import { isDuplicateKeyError, wonInsert } from "../db/duplicate-key.js";
import { iso, toObjectId } from "../db/ids.js";
import { conflict } from "../domain/errors.js";
import type { Hooks } from "./hooks.js";

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
  /** Written only by versions before token ends were documents of their own (TokenEndDoc): still honoured. */
  revokedAt?: Date | null;
}

/**
 * When a token stops working, one document per cause, only ever inserted: `<tokenId>/revoked` (a revocation, at
 * once) and `<tokenId>/rotated` (a rotation, after its grace period). A token ends at the earliest of its ends.
 * Never an update of the token: FerretDB 1.24 applies updates as read, change, write back, so an update made from
 * an older read could undo a revocation; inserts cannot, and their unique `_id` lets exactly one revocation win.
 */
interface TokenEndDoc {
  _id: string;
  tokenId: string;
  accountId: string;
  endsAt: Date;
}

type EndCause = "revoked" | "rotated";

/** Who is calling: what a live token grants. */
export interface TokenHolder {
  tokenId: string;
  accountId: string;
  scope: TokenScope;
}

/**
 * `lastUsedAt` is written only when the value this instance knows (read with the token, or its own last write) is
 * older than this, so a busy token costs each instance one write a minute, not one per request.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Token documents an instance keeps in memory, the least recently used dropped first. */
const TOKENS_KEPT = 10_000;

/** The earliest end of a token, or null while nothing ends it. */
function endOf(doc: TokenDoc, ends: TokenEndDoc[]): Date | null {
  const times = [doc.revokedAt, ...ends.map((end) => end.endsAt)].filter((time): time is Date => time instanceof Date);
  return times.length === 0 ? null : new Date(Math.min(...times.map((time) => time.getTime())));
}

const isLive = (end: Date | null, now: Date) => end === null || end > now;

const ALREADY_ROTATED = "This token was already rotated: rotate or revoke its successor instead";

/**
 * The id a token's successor gets when it is rotated: derived from the old id, so a second rotation of the
 * same token collides on `_id` and each token has at most one successor, whatever the concurrency.
 */
function successorId(tokenId: ObjectId): ObjectId {
  return new ObjectId(createHash("sha256").update(`successor-of/${tokenId.toHexString()}`).digest().subarray(0, 12));
}

const toTokenInfo = (doc: TokenDoc, end: Date | null): TokenInfo => ({
  id: doc._id.toHexString(),
  scope: doc.scope ?? "write",
  createdAt: iso(doc.createdAt),
  lastUsedAt: doc.lastUsedAt ? iso(doc.lastUsedAt) : null,
  revokedAt: end ? iso(end) : null,
});

export function createTokenRepository(db: Db, hooks: Hooks) {
  const tokens = db.collection<TokenDoc>("tokens");
  const ends = db.collection<TokenEndDoc>("tokenEnds");
  /**
   * Token documents by hash, as read: nothing in them but `lastUsedAt` ever changes (a token's end is a document of
   * its own, read on every call), so a call reads its token's ends only, not the token (a scan on FerretDB).
   */
  const known = new Map<string, TokenDoc>();

  /** The token with this hash, from memory or else the database; undefined when no token has it. */
  async function tokenOfHash(hash: string): Promise<TokenDoc | undefined> {
    const kept = known.get(hash);
    if (kept) {
      // Moved to the end: the map's first key is the least recently used.
      known.delete(hash);
      known.set(hash, kept);
      return kept;
    }
    const doc = await tokens.findOne({ hash });
    if (!doc) return undefined;
    if (known.size >= TOKENS_KEPT) known.delete(known.keys().next().value as string);
    known.set(hash, doc);
    return doc;
  }

  async function insert(accountId: string, scope: TokenScope, _id = new ObjectId()): Promise<NewToken> {
    const token = generateToken();
    await tokens.insertOne({ _id, accountId, hash: hashToken(token), scope, createdAt: new Date(), lastUsedAt: null });
    return { tokenId: _id.toHexString(), token };
  }

  const endsOf = (doc: TokenDoc) => ends.find({ tokenId: doc._id.toHexString() }).toArray();

  /** The token with this id while it is live, else undefined. */
  async function liveToken(tokenId: string, now: Date): Promise<TokenDoc | undefined> {
    const _id = toObjectId(tokenId);
    const doc = _id && (await tokens.findOne({ _id }));
    return doc && isLive(endOf(doc, await endsOf(doc)), now) ? doc : undefined;
  }

  /** Inserts the token's end for `cause`; false when the token already has one for it. */
  async function end(doc: TokenDoc, cause: EndCause, endsAt: Date): Promise<boolean> {
    const tokenId = doc._id.toHexString();
    return wonInsert(ends.insertOne({ _id: `${tokenId}/${cause}`, tokenId, accountId: doc.accountId, endsAt }));
  }

  return {
    async ensureIndexes() {
      await tokens.createIndex({ hash: 1 }, { unique: true });
      // The account's tokens in creation order, ties broken by id (the token list).
      await tokens.createIndex({ accountId: 1, createdAt: 1, _id: 1 });
      await ends.createIndex({ tokenId: 1 });
      await ends.createIndex({ accountId: 1 });
    },

    create: (accountId: string, scope: TokenScope = "write"): Promise<NewToken> => insert(accountId, scope),

    /** The holder of a live token; its ends are read from the database on every call: revocation is immediate. */
    async authenticate(token: string): Promise<TokenHolder | undefined> {
      const now = new Date();
      const doc = await tokenOfHash(hashToken(token));
      if (!doc || !isLive(endOf(doc, await endsOf(doc)), now)) return undefined;
      if (!doc.lastUsedAt || now.getTime() - doc.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
        // Set before the write, so that this instance's calls at once write it once.
        doc.lastUsedAt = now;
        // Refreshes of several instances all write about the same moment: last writer wins, the meaning intended.
        await tokens.updateOne({ _id: doc._id }, { $set: { lastUsedAt: now } });
      }
      return { tokenId: doc._id.toHexString(), accountId: doc.accountId, scope: doc.scope ?? "write" };
    },

    /** The account a token (live or not) belongs to; undefined when no token has that id. */
    async accountOf(tokenId: string): Promise<string | undefined> {
      const _id = toObjectId(tokenId);
      const doc = _id && (await tokens.findOne({ _id }, { projection: { accountId: 1 } }));
      return doc?.accountId;
    },

    /** Every token of an account, revoked ones included, oldest first; secrets are never part of it. */
    async list(accountId: string): Promise<TokenInfo[]> {
      const [docs, accountEnds] = await Promise.all([
        tokens.find({ accountId }).sort({ createdAt: 1, _id: 1 }).toArray(),
        ends.find({ accountId }).toArray(),
      ]);
      const endsOfDoc = (doc: TokenDoc) => accountEnds.filter((end) => end.tokenId === doc._id.toHexString());
      return docs.map((doc) => toTokenInfo(doc, endOf(doc, endsOfDoc(doc))));
    },

    /**
     * A new token with the same account and scope; the old one stops working after `graceSeconds` (0: at
     * once). 409 when the token already has a successor, whether the rotation that made it has ended it yet or not;
     * else undefined when no live token has that id. A revocation of the old token, before or during the rotation,
     * keeps ending it at once.
     */
    async rotate(tokenId: string, graceSeconds: number): Promise<NewToken | undefined> {
      const now = new Date();
      const _id = toObjectId(tokenId);
      const old = _id && (await tokens.findOne({ _id }));
      if (!old) return undefined;
      const oldEnds = await endsOf(old);
      if (oldEnds.some((end) => end._id === `${old._id.toHexString()}/rotated`)) throw conflict(ALREADY_ROTATED);
      if (!isLive(endOf(old, oldEnds), now)) return undefined;
      await hooks("tokens.rotate:read", tokenId);
      let successor: NewToken;
      try {
        // The successor exists before the old token ends: a crash in between leaves two live tokens, never none.
        successor = await insert(old.accountId, old.scope ?? "write", successorId(old._id));
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        throw conflict(ALREADY_ROTATED);
      }
      await end(old, "rotated", new Date(now.getTime() + graceSeconds * 1000));
      return successor;
    },

    /**
     * Revokes a live token (or one in a grace period) at once; undefined when no live token has that id, or when
     * a concurrent revocation of it won.
     */
    async revoke(tokenId: string): Promise<{ revokedAt: Date } | undefined> {
      const revokedAt = new Date();
      const token = await liveToken(tokenId, revokedAt);
      if (!token) return undefined;
      await hooks("tokens.revoke:read", tokenId);
      return (await end(token, "revoked", revokedAt)) ? { revokedAt } : undefined;
    },
  };
}
