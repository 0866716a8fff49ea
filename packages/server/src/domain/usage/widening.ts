/**
 * Widening a rollup key (one event name, alias and UTC day) to keep more dimension keys: a meter created after its
 * events were rolled up filters on, or counts distinct values of, a text property its rollups dropped. The key's
 * next compaction is then summarized again from its raw events, and must hold exactly the events the compaction it
 * replaces held plus those of the partials it merges: no event of a partial it leaves live, none twice.
 *
 * What the widening saw, in this order: the key's live documents (first), its events, which batches are open, and
 * the key's live documents again (later, with the same newest compaction: otherwise it gives up for now).
 */
export interface WideningReads {
  /** Ids of the live partials at the first read. */
  firstPartials: ReadonlySet<string>;
  /** Ids of the live partials at the later read. */
  laterPartials: ReadonlySet<string>;
  /** Batches open after the events were read: their partials may not be written yet, and are never merged. */
  openBatches: ReadonlySet<string>;
}

/** The partial one batch writes for one key: the same `_id` as `usage-rollups.ts` gives it. */
export const partialIdOf = (batchId: string, key: { name: string; alias: string; day: string }) =>
  JSON.stringify([batchId, key.name, key.alias, key.day]);

/**
 * Whether the widened compaction holds an event of `batchId` (undefined: stored before batches were recorded, so
 * rolled up by the migration, which must be done). A batch writes its partial after its events and closes after its
 * partial, and a compaction merges only closed batches' partials:
 * - batch open now: its partial stays live (written or not) and holds it: not held here;
 * - its partial live at the first read (so closed, written before): merged here: held;
 * - its partial live only at the later read: written after the first read, stays live: not held;
 * - closed, its partial live at neither read: written before the first read and already merged into the compaction
 *   replaced (no compaction happened between the reads), so held.
 */
export function isHeldByWidening(
  batchId: string | undefined,
  key: { name: string; alias: string; day: string },
  reads: WideningReads,
) {
  if (batchId === undefined) return true;
  if (reads.openBatches.has(batchId)) return false;
  const partialId = partialIdOf(batchId, key);
  if (reads.firstPartials.has(partialId)) return true;
  return !reads.laterPartials.has(partialId);
}

/** Whether rollups that kept `kept` (undefined: every text property) keep every one of `needed`. */
export const keepsEvery = (kept: string[] | undefined, needed: string[]) =>
  kept === undefined || needed.every((key) => kept.includes(key));
