import type { Meter, MeterCreate } from "@billing/shared";
import { notFound } from "../domain/errors.js";
import { type ChangeCall, publishChange } from "./webhook-events.js";

/** Stores a new meter and publishes `meter.created`. */
export async function createMeter({ repositories, accountId, trace }: ChangeCall, input: MeterCreate) {
  const created = await repositories.meters.create(accountId, input);
  await publishChange(repositories, accountId, trace.log, { type: "meter.created", data: created });
  return created;
}

/** Renames the meter named by id or key (404 when the account has none) and publishes `meter.updated`. */
export async function renameMeter(
  { repositories, accountId, trace }: ChangeCall,
  idOrKey: string,
  displayName: string,
): Promise<Meter> {
  const updated = await repositories.meters.rename(accountId, idOrKey, displayName);
  if (!updated) throw notFound("Meter");
  await publishChange(repositories, accountId, trace.log, { type: "meter.updated", data: updated });
  return updated;
}
