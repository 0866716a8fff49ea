import { keepsEvery } from "../domain/usage/widening.js";
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
 * existed (an upgrade; usage reads raw events until none is left); compacts; then widens rollups new meters need
 * (widenUsageRollups). Returns what each step did.
 */
export async function maintainUsageRollups(repositories: Repositories, now: Date) {
  const batchesRepaired = await repositories.events.repairOpenBatches(now, OPEN_BATCHES_PER_TICK);
  const eventsMigrated = await repositories.events.rollUpEventsBeforeBatches();
  const rollupsCompacted = await compactUsageRollups(repositories);
  return {
    batchesRepaired,
    eventsMigrated,
    rollupsCompacted,
    rollupsWidened: await widenUsageRollups(repositories, now),
  };
}

/** Widening requests one scheduler tick works on. */
const WIDENINGS_PER_TICK = 5;
/** Rollup documents one page of a widening's walk reads (light: keys and kept dimension keys only). */
const WIDENING_PAGE = 200;
/** Events one tick's widenings read at most before stopping (a key's day is read whole, so it may pass this once). */
export const WIDENING_EVENTS_PER_TICK = 10_000;

/**
 * Widens the rollups of event names whose new meters read text properties the rollups dropped (requested at the
 * meter's creation, see createMeter): each narrow key's next compaction is summarized again from its events, so its
 * days are read from rollups again instead of raw events. Bounded per tick (WIDENING_EVENTS_PER_TICK); a pass over a
 * name's keys that left some for later (a batch still open, a compaction meanwhile) is followed by another. Waits
 * until every event stored before rollups is rolled up (the widening holds those as rolled up). Returns the keys
 * widened.
 */
export async function widenUsageRollups(repositories: Repositories, now: Date): Promise<number> {
  if (!(await repositories.events.everyEventRolledUp())) return 0;
  let eventsRead = 0;
  let widened = 0;
  for (const request of await repositories.rollupWidenings.due(now, WIDENINGS_PER_TICK)) {
    const { accountId, eventName } = request;
    const dimensionKeys =
      (await repositories.meters.dimensionKeysByEventName(accountId, [eventName])).get(eventName) ?? [];
    let { after, later } = request;
    let done = false;
    walk: while (eventsRead < WIDENING_EVENTS_PER_TICK) {
      const keys = await repositories.usageRollups.keysOfName(accountId, eventName, after, WIDENING_PAGE);
      if (keys.length === 0) {
        // The end of a pass: done unless some keys were left for later, which the next tick's pass takes.
        done = later === 0;
        after = undefined;
        later = 0;
        break;
      }
      for (const { key, kept } of keys) {
        if (!kept.every((keys) => keepsEvery(keys, dimensionKeys))) {
          const widening = await repositories.usageRollups.widen(
            key,
            dimensionKeys,
            repositories.events.ofRollupKey,
            repositories.events.openBatches,
          );
          eventsRead += widening.eventsRead;
          if (widening.outcome === "widened") widened += 1;
          if (widening.outcome === "later") later += 1;
        }
        after = { alias: key.alias, day: key.day };
        if (eventsRead >= WIDENING_EVENTS_PER_TICK) break walk;
      }
    }
    await repositories.rollupWidenings.progress(request._id, { after, later, done });
  }
  return widened;
}
