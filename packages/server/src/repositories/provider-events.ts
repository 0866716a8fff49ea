import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";

/** A provider's event received for an account: `<accountId>/<provider>/<eventId>`, recorded once (a unique insert). */
interface ProviderEventDoc {
  _id: string;
  accountId: string;
  provider: string;
  type: string;
  receivedAt: Date;
}

export function createProviderEventRepository(db: Db) {
  const events = db.collection<ProviderEventDoc>("provider_events");
  return {
    // Written and read by `_id` only.
    async ensureIndexes() {},

    /** Records the event: false when it was already recorded (a replay, or the provider sending it again). */
    record: (accountId: string, provider: string, eventId: string, type: string, receivedAt: Date) =>
      wonInsert(
        events.insertOne({ _id: `${accountId}/${provider}/${eventId}`, accountId, provider, type, receivedAt }),
      ),

    /** Forgets the event, so that the provider's next delivery applies it: its handling failed. */
    async forget(accountId: string, provider: string, eventId: string) {
      await events.deleteOne({ _id: `${accountId}/${provider}/${eventId}` });
    },
  };
}
export type ProviderEventRepository = ReturnType<typeof createProviderEventRepository>;
