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

/**
 * A reading that reads each batch by a query of its own, from where the last one stopped: for sources whose batch
 * is a page of a list. Events keep one query open instead (sources-activity.ts).
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

/** The columns of `types`, in its order. */
export const columnsOf = (types: Record<string, ColumnType>): Column[] =>
  Object.entries(types).map(([name, type]) => ({ name, type }));

export const within = (at: string | null | undefined, { from, to }: Window) =>
  at != null && Date.parse(at) >= from.getTime() && Date.parse(at) < to.getTime();
