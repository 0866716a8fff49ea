import type { Db } from "mongodb";
import { isDuplicateKeyError } from "../db/duplicate-key.js";

/**
 * A request to widen the rollups of one event name (see `domain/usage/widening.ts`), made by the creation of a meter
 * that reads a text property of its events, and the scheduler's progress through the name's keys. One per meter
 * (`_id`), so a request is inserted once; a lost progress update only repeats work a widening finds done.
 */
interface WideningDoc {
  _id: string;
  accountId: string;
  eventName: string;
  /** Not before batches that read the meters before this one existed have written their partials. */
  notBefore: Date;
  /** The last key of the walk's current pass; absent at a pass's start. */
  after?: { alias: string; day: string };
  /** Keys of the current pass left for a later one (a batch still open, a compaction meanwhile). */
  later: number;
  done: boolean;
  requestedAt: Date;
}

export type Widening = Pick<WideningDoc, "_id" | "accountId" | "eventName" | "after" | "later">;

export function createRollupWideningRepository(db: Db) {
  const widenings = db.collection<WideningDoc>("usage_rollup_widenings");
  return {
    async ensureIndexes() {
      // The scheduler's walk over requests due and not done.
      await widenings.createIndex({ done: 1, notBefore: 1 });
    },

    /** Requests a widening of `eventName`'s rollups for the meter `meterId`, once. */
    async request(accountId: string, eventName: string, meterId: string, notBefore: Date) {
      try {
        await widenings.insertOne({
          _id: meterId,
          accountId,
          eventName,
          notBefore,
          later: 0,
          done: false,
          requestedAt: new Date(),
        });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
    },

    /** Up to `limit` requests due at `now` and not done, oldest due first. */
    async due(now: Date, limit: number): Promise<Widening[]> {
      return widenings
        .find({ done: false, notBefore: { $lte: now } })
        .project<Widening>({ _id: 1, accountId: 1, eventName: 1, after: 1, later: 1 })
        .sort({ notBefore: 1 })
        .limit(limit)
        .toArray();
    },

    /** Where the walk stands: its pass's last key and keys left for later, or done. */
    async progress(id: string, step: { after: Widening["after"]; later: number; done: boolean }) {
      const { after, ...rest } = step;
      await widenings.updateOne(
        { _id: id },
        after ? { $set: { after, ...rest } } : { $set: rest, $unset: { after: "" } },
      );
    },
  };
}
