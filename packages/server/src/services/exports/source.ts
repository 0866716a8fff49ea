import type { ExportRow } from "../../domain/exports/format.js";
import type { Column, ColumnType } from "../../domain/exports/parquet.js";
import type { CallScope } from "../call-scope.js";

/** One batch read of a source: its rows inside the window, and where to read on from (null: the end). */
export interface SourceBatch {
  rows: ExportRow[];
  cursor: string | null;
}

/** A source read batch after batch from a position on; closed when the export is written (or given up here). */
export interface SourceReading {
  next(limit: number): Promise<SourceBatch>;
  close(): Promise<void>;
}

type Window = { from: Date; to: Date };
type ReadBatch = (call: CallScope, window: Window, cursor: string | null, limit: number) => Promise<SourceBatch>;

export interface ExportSource {
  /** The columns in order, typed for Parquet (CSV and NDJSON write the same values as the API shows them). */
  columns: readonly Column[];
  /** Its reading of the window from `cursor` on (null: the start). */
  open(call: CallScope, window: Window, cursor: string | null): SourceReading;
}

/** A query's documents as the driver's cursor hands them: fetched a batch at a time as they are taken. */
interface OpenQuery<T> {
  next(): Promise<T | null>;
  close(): Promise<void>;
}

/**
 * A reading of one query kept open for the whole export, its batches fetched as the export goes (a getMore each):
 * a query a batch would cost the whole collection each on an engine that serves no query from an index (FerretDB,
 * docs/benchmarks.md, section 19). `query` opens it, fetching `batchSize` documents at a time; `toBatch` makes a
 * batch of the documents taken (at most `limit`: fewer only at the end).
 */
export function keptQuery<T>(
  query: (batchSize: number) => Promise<OpenQuery<T>>,
  toBatch: (docs: T[], limit: number) => SourceBatch | Promise<SourceBatch>,
): SourceReading {
  let kept: OpenQuery<T> | undefined;
  return {
    async next(limit) {
      kept ??= await query(limit);
      const docs: T[] = [];
      while (docs.length < limit) {
        const doc = await kept.next();
        if (doc === null) break;
        docs.push(doc);
      }
      return toBatch(docs, limit);
    },
    close: async () => kept?.close(),
  };
}

/**
 * A reading that reads each batch by a query of its own, from where the last one stopped: for sources whose batch
 * is a page of a list. Payments, the ledger and events keep one query open instead (`keptQuery`).
 */
export const batchByBatch =
  (read: ReadBatch) =>
  (call: CallScope, window: Window, cursor: string | null): SourceReading => {
    let at = cursor;
    return {
      async next(limit) {
        const batch = await read(call, window, at, limit);
        at = batch.cursor;
        return batch;
      },
      close: async () => {},
    };
  };

/** Where the batch after `items` starts: the last one's id, or null (the source's end) when the batch is short. */
export const cursorAfter = (items: readonly { id: string }[], limit: number): string | null =>
  items.length < limit ? null : (items.at(-1)?.id ?? null);

/** The columns of `types`, in its order. */
export const columnsOf = (types: Record<string, ColumnType>): Column[] =>
  Object.entries(types).map(([name, type]) => ({ name, type }));

export const within = (at: string | null | undefined, { from, to }: Window) =>
  at != null && Date.parse(at) >= from.getTime() && Date.parse(at) < to.getTime();
