import type { Db } from "mongodb";
import { deleteExpired, type ExpiringCollection } from "../db/expiry.js";
import { isDuplicateKeyError } from "../errors.js";

/** One counter per token, bucket and fixed window; its `_id` names all three. */
interface WindowDoc {
  _id: string;
  count: number;
  /** One window after the window's end (slack for clocks that differ between instances); then it may be deleted. */
  expiresAt: Date;
}

export function createRateLimitRepository(db: Db) {
  const windows = db.collection<WindowDoc>("rateLimitWindows");
  const expiring: ExpiringCollection[] = [db.collection("rateLimitWindows")];
  return {
    async ensureIndexes() {
      // A plain index, not a TTL one: FerretDB 1.24 refuses `expireAfterSeconds` (see deleteExpired).
      await windows.createIndex({ expiresAt: 1 });
    },

    /**
     * Counts one request in a window and returns the window's count including it. An upsert with `$inc`: on
     * MongoDB exact; on FerretDB 1.24 concurrent increments can be lost, so a burst may pass the limit slightly,
     * but a count is never too high, so no request within the limit is refused.
     */
    async hit(counter: string, windowStart: Date, windowEnd: Date): Promise<number> {
      const filter = { _id: `${counter}/${windowStart.toISOString()}` };
      const expiresAt = new Date(2 * windowEnd.getTime() - windowStart.getTime());
      const update = { $inc: { count: 1 }, $setOnInsert: { expiresAt } };
      for (let attempt = 1; ; attempt += 1) {
        try {
          const doc = await windows.findOneAndUpdate(filter, update, { upsert: true, returnDocument: "after" });
          const count = doc?.count ?? 1;
          // Kept small, since FerretDB's upserts take longer the larger the collection: spent windows go once a window.
          if (count === 1) await deleteExpired(expiring, windowEnd.getTime() - windowStart.getTime());
          return count;
        } catch (error) {
          // Two first requests of a window may both try to insert it: the loser increments the winner's document.
          if (!isDuplicateKeyError(error) || attempt === 3) throw error;
        }
      }
    },
  };
}
export type RateLimitRepository = ReturnType<typeof createRateLimitRepository>;
