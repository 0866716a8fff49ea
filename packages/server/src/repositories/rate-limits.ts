import type { Db } from "mongodb";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { type ExpiringCollection, ensureExpiryIndexes, purgeExpired } from "../db/expiry.js";

/**
 * One counter per token, bucket and fixed window; its `_id` names all three. Only a hint of where a call starts
 * looking for a free slot: FerretDB 1.24 can lose its concurrent increments, and nothing depends on it being exact.
 */
interface WindowDoc {
  _id: string;
  count: number;
  /** One window after the window's end (slack for clocks that differ between instances); then it may be deleted. */
  expiresAt: Date;
}

/** A call admitted in a window: `<window>/<n>` for slot n of 1..limit. The unique `_id` gives each slot one call. */
interface SlotDoc {
  _id: string;
  expiresAt: Date;
}

export function createRateLimitRepository(db: Db) {
  const windows = db.collection<WindowDoc>("rateLimitWindows");
  const slots = db.collection<SlotDoc>("rateLimitSlots");
  const expiring: ExpiringCollection[] = [db.collection("rateLimitWindows"), db.collection("rateLimitSlots")];

  /** Counts the call on the window's counter (an upsert with `$inc`) and returns the count including it. */
  async function countCall(window: string, expiresAt: Date): Promise<number> {
    const update = { $inc: { count: 1 }, $setOnInsert: { expiresAt } };
    for (let attempt = 1; ; attempt += 1) {
      try {
        const doc = await windows.findOneAndUpdate({ _id: window }, update, { upsert: true, returnDocument: "after" });
        return doc?.count ?? 1;
      } catch (error) {
        // Two first calls of a window may both try to insert it: the loser increments the winner's document.
        if (!isDuplicateKeyError(error) || attempt === 3) throw error;
      }
    }
  }

  return {
    // TTL indexes on MongoDB; on FerretDB, plain ones for the purge job (db/expiry.ts).
    ensureIndexes: () => ensureExpiryIndexes(db, expiring),

    /** Deletes spent windows and slots (bounded): the purge job's step, on engines without TTL indexes. */
    purgeExpired: (now: Date) => purgeExpired(expiring, now),

    /**
     * Admits a call into one of the `limit` slots of its window, each an insert under a unique `_id`, so that at
     * most `limit` calls are admitted on both engines whatever the concurrency. Returns the slot taken (1..limit),
     * or undefined when every slot is taken. The search starts at the window's count: every count value k is handed
     * to some call, which takes slot k or a later free one, so slots fill from 1 upwards and no call is refused
     * while a slot is free. On MongoDB the counts are distinct and the first insert succeeds; on FerretDB a lost
     * increment costs a failed insert or a few.
     */
    async admit(counter: string, limit: number, windowStart: Date, windowEnd: Date): Promise<number | undefined> {
      const window = `${counter}/${windowStart.toISOString()}`;
      const expiresAt = new Date(2 * windowEnd.getTime() - windowStart.getTime());
      const count = await countCall(window, expiresAt);
      for (let slot = count; slot <= limit; slot += 1) {
        try {
          await slots.insertOne({ _id: `${window}/${slot}`, expiresAt });
        } catch (error) {
          if (isDuplicateKeyError(error)) continue;
          throw error;
        }
        // The count lagged (lost increments): raise it, so that the next calls do not search the same taken slots.
        if (slot > count) await windows.updateOne({ _id: window }, { $max: { count: slot } });
        return slot;
      }
      return undefined;
    },
  };
}
export type RateLimitRepository = ReturnType<typeof createRateLimitRepository>;
