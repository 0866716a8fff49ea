import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";

/**
 * The claim of one attempt of one delivery, `_id` `<deliveryId>/<attempt>`: inserting it is how an instance takes the
 * attempt, and the unique `_id` lets exactly one instance take it, on FerretDB as on MongoDB. The outcome is the
 * delivery's (webhook-deliveries.ts `recordAttempt`): a claim is written once, a command per attempt.
 */
export interface AttemptDoc {
  _id: string;
  deliveryId: string;
  attempt: number;
  /** The worker (one per server instance) holding the claim. */
  workerId: string;
  claimedAt: Date;
}

const claimId = (deliveryId: string, attempt: number) => `${deliveryId}/${attempt}`;

export function createWebhookAttemptRepository(db: Db) {
  const attempts = db.collection<AttemptDoc>("webhookAttempts");

  return {
    async ensureIndexes() {
      // Point reads by `_id` only: no other index.
    },

    /** True when this worker now holds the attempt; false when another claim has it. */
    async claim(deliveryId: string, attempt: number, workerId: string): Promise<boolean> {
      const doc: AttemptDoc = {
        _id: claimId(deliveryId, attempt),
        deliveryId,
        attempt,
        workerId,
        claimedAt: new Date(),
      };
      return wonInsert(attempts.insertOne(doc));
    },

    async get(deliveryId: string, attempt: number): Promise<AttemptDoc | undefined> {
      return (await attempts.findOne({ _id: claimId(deliveryId, attempt) })) ?? undefined;
    },

    /**
     * Gives an attempt back unmade (a graceful shutdown, or nothing to send): the next claim of the same number may
     * be anyone's. Only the holder releases, and only before any other worker could take the claim over.
     */
    async release(deliveryId: string, attempt: number) {
      await attempts.deleteOne({ _id: claimId(deliveryId, attempt) });
    },
  };
}
