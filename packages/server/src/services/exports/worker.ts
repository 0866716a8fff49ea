import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { idleBackoff } from "../idle-backoff.js";
import { type Repeating, repeatEvery } from "../repeat-every.js";
import { createExportWritings, type ExportWritings, writeNextBatch } from "./exports.js";

/** How often the worker looks for exports to write (it always runs, the billing scheduler on or off). */
export const EXPORT_INTERVAL_MS = 1_000;
/** Exports a look works on, oldest first, and how long it writes batches before it lets the next look come. */
const EXPORTS_PER_LOOK = 5;
const LOOK_BUDGET_MS = 2_000;

/** `runNow` writes every unfinished export to its end, or a look's budget (what the timer does). */
export type ExportWorker = Repeating;

/**
 * Deletes exports past their retention with their chunks, unless this look sits the purge out: a purge that found
 * nothing is sat out by the next looks (services/idle-backoff.ts), so an idle instance reads `exports` for expired
 * ones every 8 s rather than every second; retention is counted in days.
 */
async function purgeLook(repositories: Repositories, purge: ReturnType<typeof idleBackoff>, scheduled: boolean) {
  if (!purge.due(scheduled)) return;
  const purged = await repositories.exports.purgeExpired(new Date());
  purge.looked(purged.length > 0);
  await repositories.exportChunks.deleteOf(purged);
}

/**
 * Writes batches of the oldest unfinished exports within the budget. The readings kept in `writings` of exports no
 * longer unfinished (completed by another instance, purged) are closed.
 */
async function exportLook(repositories: Repositories, log: Logger, writings: ExportWritings) {
  const deadline = Date.now() + LOOK_BUDGET_MS;
  const unfinished = await repositories.exports.unfinished(EXPORTS_PER_LOOK);
  for (const exp of unfinished) {
    const call = { repositories, accountId: exp.accountId, log };
    try {
      while (Date.now() < deadline && (await writeNextBatch(call, exp, writings))) {
        // one batch (one chunk) at a time: memory holds a batch, never the file
      }
    } catch (error) {
      log.error({ err: error, exportId: exp.id }, "export batch failed; the next look tries again");
    }
  }
  await writings.closeExcept(new Set(unfinished.map(({ id }) => id)));
}

/**
 * Writes exports in the background, whether or not the billing scheduler runs: every `intervalMs`, batches of the
 * oldest unfinished exports for a bounded time, and deletes exports past their retention with their files. Every
 * instance runs one; two on one export write each chunk once (export-chunks.ts), and a crash resumes from the last.
 */
export function startExportWorker(repositories: Repositories, log: Logger, intervalMs: number): ExportWorker {
  const writings = createExportWritings();
  const purge = idleBackoff();
  const looks = repeatEvery(
    intervalMs,
    async (closing, scheduled) => {
      if (closing()) return;
      await purgeLook(repositories, purge, scheduled);
      await exportLook(repositories, log, writings);
    },
    (error) => log.error({ err: error }, "the export worker's look failed; the next look tries again"),
  );
  return {
    runNow: looks.runNow,
    async close() {
      await looks.close();
      await writings.closeExcept(new Set());
    },
  };
}
