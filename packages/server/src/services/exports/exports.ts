import type { Export, ExportCreate } from "@billing/shared";
import { csvHeader, csvLine, type ExportRow, ndjsonLine } from "../../domain/exports/format.js";
import { type Column, footer, PARQUET_MAGIC, rowGroup } from "../../domain/exports/parquet.js";
import type { ExportChunk } from "../../repositories/export-chunks.js";
import type { StoredExport } from "../../repositories/exports.js";
import type { CallScope } from "../call-scope.js";
import { publishChange } from "../webhook-events.js";
import type { SourceBatch, SourceReading } from "./source.js";
import { EXPORT_SOURCES } from "./sources.js";

/** Documents a batch reads from its source: a batch is one chunk of the file (bounded memory per batch). */
export const EXPORT_BATCH_SIZE = 500;

const present = ({ accountId: _a, chunks: _c, ...shown }: StoredExport): Export => shown;

/** Records an export to be written by the export worker (POST /exports, 202); `export.created` is not sent. */
export async function createExport(call: CallScope, input: ExportCreate): Promise<Export> {
  const stored = await call.repositories.exports.create(call.accountId, input, new Date());
  return present(stored);
}

/** The export as the API shows it: its progress as noted, or from its last chunk when the note was lost. */
export async function readExport(call: Pick<CallScope, "repositories" | "accountId">, exportId: string) {
  const stored = await call.repositories.exports.get(call.accountId, exportId);
  return stored && present(stored);
}

/** An export this process is writing: the last chunk it wrote (its text dropped) and its source's reading on. */
interface Writing {
  last: Omit<ExportChunk, "text">;
  reading: SourceReading;
}

/**
 * The exports this process is writing (the worker's, the CLI's), so that the next batch goes on from the chunk
 * written here last with the source's reading still open: no read of the last chunk, and one query per export where
 * the source keeps one (events). A hint only: the next chunk's unique insert still decides, and a batch that loses
 * it drops the hint (the next batch reads the last chunk, as after a crash).
 */
export function createExportWritings() {
  const writings = new Map<string, Writing>();
  return {
    /** The export's writing, taken out: kept again only once its next chunk is written here. */
    take(exportId: string): Writing | undefined {
      const writing = writings.get(exportId);
      writings.delete(exportId);
      return writing;
    },
    keep(exportId: string, writing: Writing) {
      writings.set(exportId, writing);
    },
    /** Closes the readings of the exports not in `exportIds` (completed or purged elsewhere; all when empty). */
    async closeExcept(exportIds: ReadonlySet<string>) {
      for (const [exportId, { reading }] of writings) {
        if (exportIds.has(exportId)) continue;
        writings.delete(exportId);
        await reading.close();
      }
    },
  };
}
export type ExportWritings = ReturnType<typeof createExportWritings>;

/**
 * Writes the export's next batch as its next chunk, from where its last chunk stopped (a crash loses at most the
 * batch in flight), then notes the progress; the batch that reaches its source's end completes it and publishes
 * `export.completed`. True while more is left. Two workers on one export write each chunk once (a unique insert):
 * the loser takes the winner's chunk as its own progress. `writings` holds what this process keeps between batches.
 */
export async function writeNextBatch(
  call: CallScope,
  exp: StoredExport,
  writings: ExportWritings,
  batchSize = EXPORT_BATCH_SIZE,
): Promise<boolean> {
  const { repositories } = call;
  const source = EXPORT_SOURCES[exp.kind];
  const held = writings.take(exp.id);
  const last = held?.last ?? (await repositories.exportChunks.last(exp.id));
  const rowsSoFar = last?.rows ?? 0;
  if (last && last.cursor === null) {
    await held?.reading.close();
    return complete(call, exp, last.n + 1, rowsSoFar);
  }
  const window = { from: new Date(exp.from), to: new Date(exp.to) };
  const reading = held?.reading ?? source.open(call, window, last?.cursor ?? null);
  let kept = false;
  try {
    const batch = await reading.next(batchSize);
    const n = last ? last.n + 1 : 0;
    const file =
      exp.format === "parquet"
        ? await parquetChunk(call, exp, source.columns, batch, last)
        : { text: textOf(exp.format, source.columns, batch.rows, n) };
    const { text, ...parquet } = file;
    const chunk = { exportId: exp.id, n, rows: rowsSoFar + batch.rows.length, cursor: batch.cursor, ...parquet };
    const written = await repositories.exportChunks.write({ ...chunk, text });
    if (!written) return true; // another worker wrote it: the next look goes on from it
    if (batch.cursor === null) return complete(call, exp, n + 1, chunk.rows);
    writings.keep(exp.id, { last: chunk, reading });
    kept = true;
    await repositories.exports.noteProgress(exp.id, n + 1, chunk.rows, false, new Date());
    return true;
  } finally {
    if (!kept) await reading.close();
  }
}

/** A batch as CSV (the header record before the first) or NDJSON. */
function textOf(format: "csv" | "ndjson", columns: readonly Column[], rows: ExportRow[], n: number) {
  const names = columns.map(({ name }) => name);
  const line = format === "csv" ? csvLine : ndjsonLine;
  const head = n === 0 && format === "csv" ? csvHeader(names) : "";
  return head + rows.map((row) => line(names, row)).join("");
}

/**
 * A batch as Parquet: `PAR1` before the first, the batch's rows as one row group (none when it has no rows), and
 * after the last the footer, built from the row groups the earlier chunks noted (bytes, base64 in the chunk).
 */
async function parquetChunk(
  call: CallScope,
  exp: StoredExport,
  columns: readonly Column[],
  batch: SourceBatch,
  last: Omit<ExportChunk, "text"> | undefined,
) {
  const start = last ? (last.bytes ?? 0) : PARQUET_MAGIC.length;
  const parts: Buffer[] = last ? [] : [PARQUET_MAGIC];
  const group = batch.rows.length > 0 ? rowGroup(columns, batch.rows, start) : undefined;
  if (group) parts.push(group.bytes);
  if (batch.cursor === null) {
    const earlier = await call.repositories.exportChunks.groupsOf(exp.id);
    parts.push(footer(columns, group ? [...earlier, group.meta] : earlier));
  }
  const bytes = Buffer.concat(parts);
  return {
    text: bytes.toString("base64"),
    bytes: (last ? start : 0) + bytes.length,
    ...(group && { group: group.meta }),
  };
}

async function complete(call: CallScope, exp: StoredExport, chunks: number, rows: number): Promise<false> {
  const now = new Date();
  await call.repositories.exports.noteProgress(exp.id, chunks, rows, true, now);
  const data = { ...present(exp), status: "COMPLETED" as const, rows, completedAt: now.toISOString() };
  await publishChange(call.repositories, call.accountId, call.log, { type: "export.completed", data });
  return false;
}
