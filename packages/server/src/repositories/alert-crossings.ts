import type { Db } from "mongodb";
import { isDuplicateKeyError } from "../db/duplicate-key.js";

/**
 * One threshold an alert's customer reached in one period. Insert-only but for `publishedAt`: its `_id` (the
 * crossing key) makes the first evaluation that sees the crossing its only writer; the others find it stored.
 */
export interface CrossingDoc {
  _id: string;
  accountId: string;
  alertId: string;
  customerId: string;
  meterKey: string;
  thresholdMicros: number;
  /** The usage the winning evaluation saw: what the webhook reports, whoever publishes it. */
  valueMicros: number;
  periodStart: Date;
  periodEnd: Date;
  crossedAt: Date;
  /** When its webhook message was recorded; null until then (a crash in between: the next evaluation records it). */
  publishedAt: Date | null;
}

export function createAlertCrossingRepository(db: Db) {
  const crossings = db.collection<CrossingDoc>("alertCrossings");

  return {
    // The `_id` index is the only one: every read and write names one crossing by its key.
    async ensureIndexes() {},

    /** Stores the crossing unless one with its key exists; either way, the stored one. */
    async claim(crossing: CrossingDoc): Promise<CrossingDoc> {
      try {
        await crossings.insertOne(crossing);
        return crossing;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      const stored = await crossings.findOne({ _id: crossing._id });
      if (!stored) throw new Error(`crossing ${crossing._id} reported as stored but not found`);
      return stored;
    },

    async markPublished(crossingId: string) {
      await crossings.updateOne({ _id: crossingId }, { $set: { publishedAt: new Date() } });
    },
  };
}
