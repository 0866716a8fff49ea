import type { Repositories } from "../repositories/index.js";

/** Partials one scheduler tick looks at: its compactions read and write at most a few documents for each. */
export const ROLLUP_PARTIALS_PER_TICK = 200;

/**
 * Compacts the rollup keys that have partials waiting, among the first `limit` partials found: bounded work, and
 * safe beside other instances doing the same (each compaction is decided by a unique insert). Returns how many
 * keys were compacted.
 */
export async function compactUsageRollups(repositories: Repositories, limit = ROLLUP_PARTIALS_PER_TICK) {
  let compacted = 0;
  for (const key of await repositories.usageRollups.keysWithPartials(limit)) {
    if (await repositories.usageRollups.compact(key)) compacted += 1;
  }
  return compacted;
}
