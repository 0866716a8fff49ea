import { dayKey } from "../billing/cycles.js";
import { type RolledEvent, type RollupGroup, summarizeEvents } from "./rollup.js";

// The rules of one `POST /events` batch: each ref stored once, and the rollup partials of what it stored.

/** Each ref's first occurrence in the batch, in order: a ref repeated within the batch is stored once. */
export function firstOfEachRef<Input extends { ref: string }>(inputs: readonly Input[]): Input[] {
  const seen = new Set<string>();
  return inputs.filter(({ ref }) => {
    if (seen.has(ref)) return false;
    seen.add(ref);
    return true;
  });
}

/**
 * The refs the batch reports as duplicates, in order: each stored ref is claimed by its first occurrence; every other
 * occurrence, and every ref not stored (stored before, or by a concurrent batch), is a duplicate.
 */
export function duplicateRefs(inputs: readonly { ref: string }[], storedRefs: Iterable<string>): string[] {
  const unclaimed = new Set(storedRefs);
  return inputs.flatMap(({ ref }) => (unclaimed.delete(ref) ? [] : [ref]));
}

/** A stored event, as its rollup keys it: its name, the alias it was sent under, and what its rollup reads. */
export type KeyedEvent = RolledEvent & { name: string; alias: string };

/** One UTC day of one event name sent under one alias, in an account: what one rollup partial summarizes. */
interface DayKey {
  accountId: string;
  name: string;
  alias: string;
  day: string;
}

/**
 * The rollup partials of an account's stored events: one per (name, alias, UTC day), in the order the keys first
 * occur, keeping the dimensions each name's meters need (`dimensionKeys`: a name without meters keeps none).
 */
export function rollupPartials(
  accountId: string,
  events: readonly KeyedEvent[],
  dimensionKeys: ReadonlyMap<string, string[]>,
): { key: DayKey; dimensionKeys: string[]; groups: RollupGroup[] }[] {
  const byKey = new Map<string, { key: DayKey; events: RolledEvent[] }>();
  for (const { name, alias, ...event } of events) {
    const key = { accountId, name, alias, day: dayKey(event.timestamp) };
    const identity = JSON.stringify([key.name, key.alias, key.day]);
    const entry = byKey.get(identity) ?? { key, events: [] };
    entry.events.push(event);
    byKey.set(identity, entry);
  }
  return [...byKey.values()].map(({ key, events: keyEvents }) => {
    const kept = dimensionKeys.get(key.name) ?? [];
    return { key, dimensionKeys: kept, groups: summarizeEvents(keyEvents, kept) };
  });
}
