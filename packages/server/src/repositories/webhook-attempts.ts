import type { Db } from "mongodb";
import { wonInserts } from "../db/duplicate-key.js";

/**
 * The claim of one attempt of one delivery, `_id` `<deliveryId>/<attempt>`: inserting it is how an instance takes the
 * attempt, and the unique `_id` lets exactly one instance take it, on FerretDB as on MongoDB. The outcome is the
 * delivery's (webhook-deliveries.ts `recordAttempt`): a claim is written once, a command per poll's page of attempts.
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

    /**
     * Claims attempts (a poll's page) in one command, each decided by its own unique `_id`: the deliveries whose
     * attempt this worker now holds (another claim has the others').
     */
    async claimMany(claims: { deliveryId: string; attempt: number }[], workerId: string): Promise<Set<string>> {
      if (claims.length === 0) return new Set();
      const claimedAt = new Date();
      const docs = claims.map(({ deliveryId, attempt }) => ({
        _id: claimId(deliveryId, attempt),
        deliveryId,
        attempt,
        workerId,
        claimedAt,
      }));
      const won = await wonInserts(attempts.insertMany(docs, { ordered: false }), docs.length);
      return new Set([...won].map((index) => claims[index]?.deliveryId ?? ""));
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
