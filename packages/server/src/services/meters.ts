import type { Meter, MeterCreate } from "@billing/shared";
import { notFound } from "../domain/errors.js";
import { dimensionKeysOf } from "../domain/usage/rollup.js";
import { BATCH_REPAIR_AFTER_MS } from "../repositories/events.js";
import type { CallScope } from "./call-scope.js";
import { publishChange } from "./webhook-events.js";

/**
 * Stores a new meter and publishes `meter.created`. A meter that reads a text property of its events (a filter, or
 * the values UNIQUE_COUNT counts) has its event name's rollups widened to keep it (widenUsageRollups), once batches
 * that read the meters before it existed have written their partials (BATCH_REPAIR_AFTER_MS / 2 at most); until
 * then, days whose rollups dropped the property are read from their events.
 */
export async function createMeter({ repositories, accountId, log }: CallScope, input: MeterCreate) {
  const created = await repositories.meters.create(accountId, input);
  if (dimensionKeysOf([created]).length > 0) {
    const notBefore = new Date(Date.parse(created.createdAt) + BATCH_REPAIR_AFTER_MS / 2);
    await repositories.rollupWidenings.request(accountId, created.eventName, created.id, notBefore);
  }
  await publishChange(repositories, accountId, log, { type: "meter.created", data: created });
  return created;
}

/** Renames the meter named by id or key (404 when the account has none) and publishes `meter.updated`. */
export async function renameMeter(
  { repositories, accountId, log }: CallScope,
  idOrKey: string,
  displayName: string,
): Promise<Meter> {
  const updated = await repositories.meters.rename(accountId, idOrKey, displayName);
  if (!updated) throw notFound("Meter");
  await publishChange(repositories, accountId, log, { type: "meter.updated", data: updated });
  return updated;
}
