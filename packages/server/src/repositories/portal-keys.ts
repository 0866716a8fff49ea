import { randomBytes } from "node:crypto";
import type { Db } from "mongodb";
import type { SecretBox } from "../auth/secret-box.js";
import { wonInsert } from "../db/duplicate-key.js";

/** An account's key signing its customer portal links: `_id` the account, sealed at rest like signing secrets. */
interface PortalKeyDoc {
  _id: string;
  key: string;
  createdAt: Date;
}

/** A customer's last revocation of its portal links, `_id` `<account>/<customer>` (beside the account's key). */
interface PortalRevocationDoc {
  _id: string;
  revokedAt: Date;
}

const contextOf = (accountId: string) => `${accountId}/portal`;

export function createPortalKeyRepository(db: Db, secretBox: SecretBox) {
  const keys = db.collection<PortalKeyDoc>("portal_keys");
  const revocations = db.collection<PortalRevocationDoc>("portal_keys");
  const revocationIdOf = (accountId: string, customerId: string) => `${accountId}/${customerId}`;
  const read = async (accountId: string) => {
    const doc = await keys.findOne({ _id: accountId });
    return doc ? Buffer.from(secretBox.open(doc.key, contextOf(accountId)), "base64") : undefined;
  };
  return {
    // Written and read by `_id` only.
    async ensureIndexes() {},

    /** The account's key; undefined when it never made a portal link (no link of it can be good). */
    existing: read,

    /** When the customer's portal links were last revoked (links made until then are refused); undefined: never. */
    async revokedAt(accountId: string, customerId: string): Promise<Date | undefined> {
      return (await revocations.findOne({ _id: revocationIdOf(accountId, customerId) }))?.revokedAt;
    },

    /**
     * Revokes the customer's links made until `at`. Two revocations at once: either moment stands, and both refuse
     * every link made before either began. A repeated upsert's duplicate key (racing first revocations) is retried.
     */
    async revoke(accountId: string, customerId: string, at: Date): Promise<void> {
      const write = () =>
        revocations.updateOne(
          { _id: revocationIdOf(accountId, customerId) },
          { $set: { revokedAt: at } },
          { upsert: true },
        );
      if (!(await wonInsert(write()))) await write();
    },

    /** The account's key, made on its first portal link: of racing makers one insert wins and all use its key. */
    async keyOf(accountId: string): Promise<Buffer> {
      const found = await read(accountId);
      if (found) return found;
      const key = randomBytes(32).toString("base64");
      const sealed = secretBox.seal(key, contextOf(accountId));
      await wonInsert(keys.insertOne({ _id: accountId, key: sealed, createdAt: new Date() }));
      const stored = await read(accountId);
      if (!stored) throw new Error(`portal key of account ${accountId} was inserted but not found`);
      return stored;
    },
  };
}
export type PortalKeyRepository = ReturnType<typeof createPortalKeyRepository>;
