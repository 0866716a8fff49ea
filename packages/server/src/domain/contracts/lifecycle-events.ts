import { eventOfEntry, type LifecycleEntry, type LifecycleEvent } from "./status.js";

/**
 * The events of one recorded change of a contract (its entries, time's and the caller's), each type once, in the
 * order of the entries, each entry's as the contract's machine declares it (eventOfEntry): the request or run that
 * records the change and the webhook sweep that recovers its events apply this one rule, so they publish the same
 * messages.
 */
export const lifecycleEventsOf = (entries: Pick<LifecycleEntry, "kind" | "to">[]): LifecycleEvent[] => [
  ...new Set(entries.map(eventOfEntry)),
];
