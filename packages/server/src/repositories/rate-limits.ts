import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import { type ExpiringCollection, ensureExpiryIndexes, purgeExpired } from "../db/expiry.js";

/** A call admitted in a window: `<window>/<n>` for slot n of 1..limit. The unique `_id` gives each slot one call. */
interface SlotDoc {
  _id: string;
  expiresAt: Date;
}

/** Where this instance looks first in a counter's current window: every slot below `next` is taken, as it knows. */
interface SlotHint {
  window: string;
  next: number;
}

/** Counters with a hint this instance keeps: past it, it forgets them all. */
const HINTS_KEPT = 10_000;

export function createRateLimitRepository(db: Db) {
  const slots = db.collection<SlotDoc>("rateLimitSlots");
  // The per-window counters of earlier versions (`rateLimitWindows`) are purged with the slots until none is left.
  const expiring: ExpiringCollection[] = [db.collection("rateLimitWindows"), db.collection("rateLimitSlots")];
  const hints = new Map<string, SlotHint>();

  const isTaken = async (window: string, slot: number) =>
    (await slots.findOne({ _id: `${window}/${slot}` }, { projection: { _id: 1 } })) !== null;

  /**
   * The lowest slot above `taken` that is free, limit + 1 when none is, by point reads: slots fill from 1 upwards
   * with no gap, so the taken ones are a prefix, found by doubling steps and then halving the last one.
   */
  async function firstFreeAbove(window: string, taken: number, limit: number): Promise<number> {
    let low = taken;
    let high = taken + 1;
    for (let step = 1; high <= limit && (await isTaken(window, high)); step *= 2) {
      low = high;
      high = Math.min(low + step * 2, limit + 1);
    }
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await isTaken(window, middle)) low = middle;
      else high = middle;
    }
    return high;
  }

  /** The counter's hint for `window`: a fresh one (slot 1) for a window it has not seen. */
  function hintOf(counter: string, window: string): SlotHint {
    const known = hints.get(counter);
    if (known?.window === window) return known;
    // Forgetting every hint at once keeps this bounded and cheap: a forgotten one costs its next call a failed insert
    // and a few reads.
    if (hints.size >= HINTS_KEPT) hints.clear();
    const fresh = { window, next: 1 };
    hints.set(counter, fresh);
    return fresh;
  }

  return {
    // TTL indexes on MongoDB; on FerretDB, plain ones for the purge job (db/expiry.ts).
    ensureIndexes: () => ensureExpiryIndexes(db, expiring),

    /** Deletes spent slots (bounded): the purge job's step, on engines without TTL indexes. */
    purgeExpired: (now: Date) => purgeExpired(expiring, now),

    /**
     * Admits a call into one of the `limit` slots of its window, each an insert under a unique `_id`, so that at
     * most `limit` calls are admitted on both engines whatever the concurrency. Returns the slot taken (1..limit),
     * or undefined when every slot is taken. A call takes the lowest slot it knows free: this instance's next one
     * (one insert, no read, while it serves the token alone); when another instance took it first, the lowest free
     * one above, found by a few point reads. So slots fill from 1 upwards and no call is refused while one is free.
     */
    async admit(counter: string, limit: number, windowStart: Date, windowEnd: Date): Promise<number | undefined> {
      const window = `${counter}/${windowStart.toISOString()}`;
      const expiresAt = new Date(2 * windowEnd.getTime() - windowStart.getTime());
      const hint = hintOf(counter, window);
      let slot = hint.next;
      while (slot <= limit) {
        // Taken before the insert, so that the instance's calls at once each try a slot of their own.
        hint.next = Math.max(hint.next, slot + 1);
        try {
          if (await wonInsert(slots.insertOne({ _id: `${window}/${slot}`, expiresAt }))) return slot;
        } catch (error) {
          // Not taken on the key: the slot may be free still, so the next call tries it again rather than leave a gap.
          hint.next = Math.min(hint.next, slot);
          throw error;
        }
        slot = await firstFreeAbove(window, slot, limit);
        hint.next = Math.max(hint.next, slot);
      }
      return undefined;
    },
  };
}
export type RateLimitRepository = ReturnType<typeof createRateLimitRepository>;
