import { randomUUID } from "node:crypto";
import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";

/**
 * One open customer stream's place among its account's (docs/decisions.md, "The customer stream", Bounds): `_id`
 * `<account>/<k>`, k below the account's bound, taken by a unique insert on whichever instance holds the connection,
 * so that the bound holds across instances. Its holder alone renews it (`expiresAt`) and deletes it at the end; one
 * whose holder is gone (a crash) is taken over once expired.
 */
export interface StreamLeaseDoc {
  _id: string;
  accountId: string;
  /** The connection holding it: a random id. */
  token: string;
  expiresAt: Date;
}

export type StreamLease = Pick<StreamLeaseDoc, "_id" | "token">;

export function createStreamLeaseRepository(db: Db) {
  const leases = db.collection<StreamLeaseDoc>("streamLeases");
  const insert = async (accountId: string, _id: string, ttlMs: number): Promise<StreamLease | undefined> => {
    const token = randomUUID();
    const inserted = leases.insertOne({ _id, accountId, token, expiresAt: new Date(Date.now() + ttlMs) });
    return (await wonInsert(inserted)) ? { _id, token } : undefined;
  };

  return {
    /** Only `_id` is read or written. */
    async ensureIndexes() {},

    /**
     * The first free place of the account's `places` (`<account>/0`, `/1`…), or undefined when every one is held: an
     * expired one is deleted (exactly it, by its token) and taken by the insert that wins it.
     */
    async take(accountId: string, places: number, ttlMs: number): Promise<StreamLease | undefined> {
      for (let k = 0; k < places; k += 1) {
        const _id = `${accountId}/${k}`;
        const taken = await insert(accountId, _id, ttlMs);
        if (taken) return taken;
        const held = await leases.findOne({ _id });
        if (held && held.expiresAt.getTime() > Date.now()) continue;
        if (held) await leases.deleteOne({ _id, token: held.token });
        const takenOver = await insert(accountId, _id, ttlMs);
        if (takenOver) return takenOver;
      }
      return undefined;
    },

    /** Extends the lease: false when it is no longer this connection's (it expired and was taken over). */
    async renew(lease: StreamLease, ttlMs: number): Promise<boolean> {
      const expiresAt = new Date(Date.now() + ttlMs);
      const renewed = await leases.updateOne({ _id: lease._id, token: lease.token }, { $set: { expiresAt } });
      return renewed.matchedCount === 1;
    },

    /** Frees the place at the connection's end. */
    release: async (lease: StreamLease) => {
      await leases.deleteOne({ _id: lease._id, token: lease.token });
    },
  };
}

export type StreamLeaseRepository = ReturnType<typeof createStreamLeaseRepository>;
