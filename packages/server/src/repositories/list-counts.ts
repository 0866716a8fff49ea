import type { Db } from "mongodb";
import type { CountedStream, StreamPosition } from "../db/counted-stream.js";
import { wonInsert } from "../db/duplicate-key.js";

/**
 * Generation `generation` of an account's count of one stream: `count` documents lie at or before `watermark`.
 * Insert-only: a compaction inserts the next generation, `_id` naming (stream, account, generation), so that of
 * concurrent compactions of one generation exactly one insert wins (FerretDB loses concurrent updates).
 */
interface ListCountDoc {
  _id: string;
  accountId: string;
  stream: string;
  generation: number;
  count: number;
  watermark: StreamPosition;
  countedAt: Date;
}

const countId = (stream: string, accountId: string, generation: number) => `${stream}:${accountId}:${generation}`;

export function createListCountRepository(db: Db) {
  const counts = db.collection<ListCountDoc>("list_counts");

  const newest = (accountId: string, stream: CountedStream) =>
    counts.findOne({ accountId, stream: stream.name }, { sort: { generation: -1 } });

  return {
    async ensureIndexes() {
      await counts.createIndex({ accountId: 1, stream: 1, generation: 1 });
    },

    /**
     * How many documents the account's stream holds: its newest count, plus the documents after that count's
     * watermark (all of them while none was made). Exact because the stream is append-only and every document at or
     * before a watermark was stored before its count was made (see CountedStream).
     */
    async total(accountId: string, stream: CountedStream): Promise<number> {
      const counted = await newest(accountId, stream);
      return (counted?.count ?? 0) + (await stream.countAfter(accountId, counted?.watermark));
    },

    /**
     * Counts up to `limit` more documents of the stream, those stored before `settledBefore`, into the next
     * generation. Returns whether this call made it (false: nothing to count, or a concurrent compaction made it). The
     * generations before the newest two are deleted: a reader may still hold the one before.
     */
    async compact(accountId: string, stream: CountedStream, settledBefore: Date, limit: number): Promise<boolean> {
      const counted = await newest(accountId, stream);
      const positions = await stream.positionsAfter(accountId, counted?.watermark, settledBefore, limit);
      const watermark = positions.at(-1);
      if (!watermark) return false;
      const generation = (counted?.generation ?? 0) + 1;
      const inserted = await wonInsert(
        counts.insertOne({
          _id: countId(stream.name, accountId, generation),
          accountId,
          stream: stream.name,
          generation,
          count: (counted?.count ?? 0) + positions.length,
          watermark,
          countedAt: new Date(),
        }),
      );
      if (!inserted) return false;
      await counts.deleteMany({ accountId, stream: stream.name, generation: { $lt: generation - 1 } });
      return true;
    },
  };
}

export type ListCountRepository = ReturnType<typeof createListCountRepository>;
