import type { Repositories } from "../repositories/index.js";

/** Partials one scheduler tick looks at: its compactions read and write at most a few documents for each. */
export const ROLLUP_PARTIALS_PER_TICK = 200;
/** Open event batches one scheduler tick repairs: each reads at most one call's events. */
export const OPEN_BATCHES_PER_TICK = 20;

/**
 * Compacts the rollup keys that have partials waiting, among the first `limit` partials found: bounded work, and
 * safe beside other instances doing the same (each compaction is decided by a unique insert). Partials of batches
 * still open wait for their repair. Returns how many keys were compacted.
 */
export async function compactUsageRollups(repositories: Repositories, limit = ROLLUP_PARTIALS_PER_TICK) {
  let compacted = 0;
  for (const key of await repositories.usageRollups.keysWithPartials(limit)) {
    if (await repositories.usageRollups.compact(key, repositories.events.openBatches)) compacted += 1;
  }
  return compacted;
}

/**
 * Writes the missing partials of event batches whose call stopped between storing its events and writing their
 * partials (a crash, a failed insert), so that their events count; rolls up the next events stored before rollups
 * existed (an upgrade; usage reads raw events until none is left); then compacts. Returns what each step did.
 */
export async function maintainUsageRollups(repositories: Repositories, now: Date) {
  const batchesRepaired = await repositories.events.repairOpenBatches(now, OPEN_BATCHES_PER_TICK);
  const eventsMigrated = await repositories.events.rollUpEventsBeforeBatches();
  return { batchesRepaired, eventsMigrated, rollupsCompacted: await compactUsageRollups(repositories) };
}
