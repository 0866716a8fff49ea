import type { ContractHistoryEntry } from "@billing/shared";

/** The events of a contract's lifecycle: each carries the contract as the API returns it. */
export type LifecycleEvent = "contract.updated" | "contract.renewed" | "contract.expired" | "contract.terminated";

/** The event one recorded change announces: its renewal, expiry or termination; any other change is an update. */
const eventOf = ({ kind, to }: Pick<ContractHistoryEntry, "kind" | "to">): LifecycleEvent => {
  if (kind === "renewal") return "contract.renewed";
  if (to === "Terminated") return "contract.terminated";
  if (to === "Expired") return "contract.expired";
  return "contract.updated";
};

/**
 * The events of one recorded change of a contract (its entries, time's and the caller's), each type once, in the
 * order of the entries: the request or run that records the change and the webhook sweep that recovers its events
 * apply this one rule, so they publish the same messages.
 */
export const lifecycleEventsOf = (entries: Pick<ContractHistoryEntry, "kind" | "to">[]): LifecycleEvent[] => [
  ...new Set(entries.map(eventOf)),
];

/** Events that a contract has again and again (keyed by its `updatedAt`), unlike those of its end. */
export const repeatsInLife = (event: LifecycleEvent) => event === "contract.updated" || event === "contract.renewed";
