import type { ExportRow } from "../../domain/exports/format.js";
import type { Column, ColumnType } from "../../domain/exports/parquet.js";
import type { CallScope } from "../call-scope.js";

/** One batch read of a source: its rows inside the window, and where to read on from (null: the end). */
export interface SourceBatch {
  rows: ExportRow[];
  cursor: string | null;
}

export interface ExportSource {
  /** The columns in order, typed for Parquet (CSV and NDJSON write the same values as the API shows them). */
  columns: readonly Column[];
  read(call: CallScope, window: { from: Date; to: Date }, cursor: string | null, limit: number): Promise<SourceBatch>;
}

/** The columns of `types`, in its order. */
export const columnsOf = (types: Record<string, ColumnType>): Column[] =>
  Object.entries(types).map(([name, type]) => ({ name, type }));

export const within = (at: string | null | undefined, { from, to }: { from: Date; to: Date }) =>
  at != null && Date.parse(at) >= from.getTime() && Date.parse(at) < to.getTime();
