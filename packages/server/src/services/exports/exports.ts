import type { Export, ExportCreate } from "@billing/shared";
import { csvHeader, csvLine, ndjsonLine } from "../../domain/exports/format.js";
import type { StoredExport } from "../../repositories/exports.js";
import type { CallScope } from "../call-scope.js";
import { publishChange } from "../webhook-events.js";
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

/**
 * Writes the export's next batch as its next chunk, from where its last chunk stopped (a crash loses at most the
 * batch in flight), then notes the progress; the batch that reaches its source's end completes it and publishes
 * `export.completed`. True while more is left. Two workers on one export write each chunk once (a unique insert):
 * the loser takes the winner's chunk as its own progress.
 */
export async function writeNextBatch(
  call: CallScope,
  exp: StoredExport,
  batchSize = EXPORT_BATCH_SIZE,
): Promise<boolean> {
  const { repositories } = call;
  const source = EXPORT_SOURCES[exp.kind];
  if (!source) throw new Error(`export ${exp.id}: no source for ${exp.kind}`);
  const last = await repositories.exportChunks.last(exp.id);
  const rowsSoFar = last?.rows ?? 0;
  if (last && last.cursor === null) return complete(call, exp, last.n + 1, rowsSoFar);
  const window = { from: new Date(exp.from), to: new Date(exp.to) };
  const batch = await source.read(call, window, last?.cursor ?? null, batchSize);
  const n = last ? last.n + 1 : 0;
  const line = exp.format === "csv" ? csvLine : ndjsonLine;
  const head = n === 0 && exp.format === "csv" ? csvHeader(source.columns) : "";
  const text = head + batch.rows.map((row) => line(source.columns, row)).join("");
  const written = await repositories.exportChunks.write({
    exportId: exp.id,
    n,
    text,
    rows: rowsSoFar + batch.rows.length,
    cursor: batch.cursor,
  });
  if (!written) return true; // another worker wrote it: the next look goes on from it
  if (batch.cursor === null) return complete(call, exp, n + 1, rowsSoFar + batch.rows.length);
  await repositories.exports.noteProgress(exp.id, n + 1, rowsSoFar + batch.rows.length, false, new Date());
  return true;
}

async function complete(call: CallScope, exp: StoredExport, chunks: number, rows: number): Promise<false> {
  const now = new Date();
  await call.repositories.exports.noteProgress(exp.id, chunks, rows, true, now);
  const data = { ...present(exp), status: "COMPLETED" as const, rows, completedAt: now.toISOString() };
  await publishChange(call.repositories, call.accountId, call.log, { type: "export.completed", data });
  return false;
}
