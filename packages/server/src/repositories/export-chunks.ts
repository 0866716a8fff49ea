import type { Db } from "mongodb";
import { wonInsert } from "../db/duplicate-key.js";
import type { RowGroupMeta } from "../domain/exports/parquet.js";

/** One batch of an export's file: its text, its rows, and where its source's reading stopped (`cursor`). */
export interface ExportChunk {
  exportId: string;
  n: number;
  text: string;
  rows: number;
  /** The source's position after this batch; null: the source is read to its end (the last chunk). */
  cursor: string | null;
  /** Parquet: `text` holds the chunk's bytes in base64, `bytes` the file's length after it, `group` its row group. */
  bytes?: number;
  group?: RowGroupMeta;
}

type ChunkDoc = ExportChunk & { _id: string };

/** Chunks a file's reading fetches at a time. */
const CHUNKS_PER_FETCH = 4;

/**
 * The files of exports, as their chunks in order: insert-only, `_id` `<export>:<n>`, so of two workers writing the
 * same batch one wins and the other reads the winner's chunk; the last chunk (`cursor` null) completes the file. A
 * crash loses at most the batch in flight: the worker resumes from the last chunk's cursor. Deleted with their export.
 */
export function createExportChunkRepository(db: Db) {
  const chunks = db.collection<ChunkDoc>("exportChunks");
  const idOf = (exportId: string, n: number) => `${exportId}:${String(n).padStart(8, "0")}`;

  return {
    async ensureIndexes() {
      await chunks.createIndex({ exportId: 1, n: 1 });
    },

    /** Writes chunk `n` once: false when it was already written (then read it with `get`). */
    async write(chunk: ExportChunk): Promise<boolean> {
      return wonInsert(chunks.insertOne({ _id: idOf(chunk.exportId, chunk.n), ...chunk }));
    },

    async get(exportId: string, n: number): Promise<ExportChunk | undefined> {
      const doc = await chunks.findOne({ _id: idOf(exportId, n) });
      return doc ?? undefined;
    },

    /** The last chunk written, if any: where a worker resumes. */
    async last(exportId: string): Promise<ExportChunk | undefined> {
      const [doc] = await chunks.find({ exportId }).sort({ n: -1 }).limit(1).toArray();
      return doc ?? undefined;
    },

    /**
     * The export's chunks in order, fetched a few at a time as the caller reads on (memory holds those, never the
     * file): one query for the whole file, as an engine that serves no query from an index (FerretDB) reads every
     * chunk of every export for each query, however few it returns.
     */
    inOrder(exportId: string) {
      return chunks.find({ exportId }).sort({ n: 1 }).batchSize(CHUNKS_PER_FETCH);
    },

    /** Parquet: the row groups the export's chunks hold, in order (what its footer lists). */
    async groupsOf(exportId: string): Promise<RowGroupMeta[]> {
      const docs = await chunks
        .find({ exportId, n: { $gte: 0 } }, { projection: { group: 1 } })
        .sort({ n: 1 })
        .toArray();
      return docs.flatMap(({ group }) => (group ? [group] : []));
    },

    async deleteOf(exportIds: string[]): Promise<number> {
      if (exportIds.length === 0) return 0;
      return (await chunks.deleteMany({ exportId: { $in: exportIds } })).deletedCount;
    },
  };
}
