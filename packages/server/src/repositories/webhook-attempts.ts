import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";

/**
 * The claim of one attempt of one delivery, `_id` `<deliveryId>/<attempt>`: inserting it is how an instance takes the
 * attempt, and the unique `_id` lets exactly one instance take it, on FerretDB as on MongoDB. It then records the
 * attempt's outcome, so the claims are also the delivery's attempt log.
 */
export interface AttemptDoc {
  _id: string;
  deliveryId: string;
  attempt: number;
  /** The worker (one per server instance) holding the claim. */
  workerId: string;
  claimedAt: Date;
  finishedAt: Date | null;
  statusCode: number | null;
  error: string | null;
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
        finishedAt: null,
        statusCode: null,
        error: null,
      };
      return wonInsert(attempts.insertOne(doc));
    },

    async get(deliveryId: string, attempt: number): Promise<AttemptDoc | undefined> {
      return (await attempts.findOne({ _id: claimId(deliveryId, attempt) })) ?? undefined;
    },

    /** The outcome, written by the claim's holder alone. */
    async finish(deliveryId: string, attempt: number, outcome: { statusCode: number | null; error: string | null }) {
      await attempts.updateOne({ _id: claimId(deliveryId, attempt) }, { $set: { ...outcome, finishedAt: new Date() } });
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
