import type { Collection, Document, Filter, ObjectId } from "mongodb";
import { after } from "./pagination.js";

/** A place in a stream's order: its time, then its id (ties on the time are ordered by id). */
export interface StreamPosition {
  at: Date;
  id: ObjectId;
}

/**
 * An account's documents of one collection in the order (`timeField`, `_id`), counted by the list totals
 * (repositories/list-counts.ts). It must be append-only per account: no document of it is deleted, changes its
 * account or its time, or is stored with a time older than LIST_COUNT_SETTLE_MS (see decisions, "List totals").
 */
export interface CountedStream {
  /** The stream's name in its counts' ids: unique among the streams. */
  name: string;
  /** The positions after `from` (from the start when undefined), oldest first, time before `settledBefore`. */
  positionsAfter(
    accountId: string,
    from: StreamPosition | undefined,
    settledBefore: Date,
    limit: number,
  ): Promise<StreamPosition[]>;
  /** How many documents lie after `from` (all of the account's, when undefined). */
  countAfter(accountId: string, from: StreamPosition | undefined): Promise<number>;
}

/** The stream of `collection` by `timeField`; its owner declares the index (accountId, timeField, _id). */
export function countedStream<Doc extends Document & { accountId: string }>(
  name: string,
  collection: Collection<Doc>,
  timeField: keyof Doc & string,
): CountedStream {
  const beyond = (accountId: string, from: StreamPosition | undefined): Document => ({
    accountId,
    ...(from && after(timeField, from.at, from.id)),
  });
  return {
    name,
    async positionsAfter(accountId, from, settledBefore, limit) {
      const filter = beyond(accountId, from);
      // The settled bound joins the keyset's lower bound on the time, so that one index range is scanned.
      filter[timeField] = { ...(filter[timeField] as Document | undefined), $lt: settledBefore };
      const docs = await collection
        .find(filter as Filter<Doc>)
        .project<Document>({ [timeField]: 1 })
        .sort({ [timeField]: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((doc) => ({ at: doc[timeField] as Date, id: doc._id as ObjectId }));
    },
    countAfter(accountId, from) {
      return collection.countDocuments(beyond(accountId, from) as Filter<Doc>);
    },
  };
}
