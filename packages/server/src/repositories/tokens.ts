import { ObjectId, type Db } from "mongodb";
import type { NewToken } from "@billing/shared";
import { generateToken, hashToken } from "../auth/tokens.js";
import { toObjectId } from "../db/ids.js";

interface TokenDoc {
  _id: ObjectId;
  accountId: string;
  /** SHA-256 of the token: the secret itself is never stored. */
  hash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export function createTokenRepository(db: Db) {
  const tokens = db.collection<TokenDoc>("tokens");
  return {
    async ensureIndexes() {
      await tokens.createIndex({ hash: 1 }, { unique: true });
    },

    async create(accountId: string): Promise<NewToken> {
      const token = generateToken();
      const doc: TokenDoc = { _id: new ObjectId(), accountId, hash: hashToken(token), createdAt: new Date(), revokedAt: null };
      await tokens.insertOne(doc);
      return { tokenId: doc._id.toHexString(), token };
    },

    /** The account a live token belongs to. Read from the database on every call: revocation is immediate. */
    async accountIdOf(token: string): Promise<string | undefined> {
      const doc = await tokens.findOne({ hash: hashToken(token), revokedAt: null }, { projection: { accountId: 1 } });
      return doc?.accountId;
    },

    /** Revokes a live token; false when no live token has that id. */
    async revoke(tokenId: string): Promise<{ revokedAt: Date } | undefined> {
      const _id = toObjectId(tokenId);
      if (!_id) return undefined;
      const revokedAt = new Date();
      const result = await tokens.updateOne({ _id, revokedAt: null }, { $set: { revokedAt } });
      return result.modifiedCount === 1 ? { revokedAt } : undefined;
    },
  };
}
export type TokenRepository = ReturnType<typeof createTokenRepository>;
