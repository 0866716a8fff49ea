import type { ContractHistoryEntry, ContractStatus } from "@billing/shared";
import { conflict } from "../errors.js";

/** The events of a contract's lifecycle: each carries the contract as the API returns it. */
export type LifecycleEvent =
  | "contract.updated"
  | "contract.renewed"
  | "contract.expired"
  | "contract.terminated"
  | "contract.seats_changed"
  | "contract.deleted";

interface StatusRules {
  /** The statuses it may move to, by a caller's request or by time. None: it is final. */
  next: readonly ContractStatus[];
  /**
   * What time makes of it, each when its moment has come: `atTermination`, its scheduled termination
   * (`terminationAt`); `atEnd`, the end of its term (`endDate`), unless it renews then. Neither: time leaves it be.
   */
  byTime: { atTermination?: ContractStatus; atEnd?: ContractStatus };
  /** The event a transition to it announces. */
  announcedAs: LifecycleEvent;
}

/**
 * The contract's machine: for each status, the statuses it may become, what time makes of it, and the event of a
 * transition to it. Terminated and Expired are final. An InReview contract never started, and an Error one waits for
 * its failed cycle to bill: time changes neither. `Error` is not stored: it is read from a failed cycle's record (see
 * shownStatus), so it moves as its status does.
 */
const MACHINE: { [From in ContractStatus]: StatusRules } = {
  InReview: { next: ["Active", "Terminated", "Expired"], byTime: {}, announcedAs: "contract.updated" },
  Active: {
    next: ["Inactive", "PendingTermination", "Terminated", "Expired"],
    byTime: { atEnd: "Expired" },
    announcedAs: "contract.updated",
  },
  Inactive: {
    next: ["Active", "PendingTermination", "Terminated", "Expired"],
    byTime: { atEnd: "Expired" },
    announcedAs: "contract.updated",
  },
  PendingTermination: {
    next: ["Terminated", "Expired"],
    byTime: { atTermination: "Terminated", atEnd: "Expired" },
    announcedAs: "contract.updated",
  },
  Error: {
    next: ["Active", "Inactive", "PendingTermination", "Terminated", "Expired"],
    byTime: {},
    announcedAs: "contract.updated",
  },
  Terminated: { next: [], byTime: {}, announcedAs: "contract.terminated" },
  Expired: { next: [], byTime: {}, announcedAs: "contract.expired" },
};

/**
 * An entry of a contract's lifecycle log: an entry of its history, or its deletion. A deletion is no entry of any
 * history answered (a deleted contract is read by no history request).
 */
export type LifecycleEntry = Omit<ContractHistoryEntry, "kind"> & { kind: ContractHistoryEntry["kind"] | "deletion" };

/** The event each kind of change announces; a transition's is its new status's (MACHINE). */
const EVENT_OF_KIND: Record<Exclude<LifecycleEntry["kind"], "transition">, LifecycleEvent> = {
  renewal: "contract.renewed",
  amendment: "contract.updated",
  seats: "contract.seats_changed",
  deletion: "contract.deleted",
};

/** The event one recorded entry announces: a transition to a status that has none of its own is an update. */
export const eventOfEntry = ({ kind, to }: Pick<LifecycleEntry, "kind" | "to">): LifecycleEvent =>
  kind === "transition" ? (to ? MACHINE[to].announcedAs : "contract.updated") : EVENT_OF_KIND[kind];

export const isFinal = (status: ContractStatus) => MACHINE[status].next.length === 0;

/** What time makes of a contract of this status when `moment` has come (none: time leaves it be then). */
export const statusByTime = (status: ContractStatus, moment: keyof StatusRules["byTime"]) =>
  MACHINE[status].byTime[moment];

/** Whether time changes a contract of this status at all. */
export const changedByTime = (status: ContractStatus) => Object.keys(MACHINE[status].byTime).length > 0;

/**
 * The status a read shows: `Error` while one of the contract's cycles has failed to bill (the run's failure record),
 * back to its own status once that cycle bills. A final status stays as it is, as does one that is not billed.
 */
export const shownStatus = (status: ContractStatus, failing: boolean): ContractStatus =>
  failing && (status === "Active" || status === "Inactive" || status === "PendingTermination") ? "Error" : status;

export const mayBecome = (from: ContractStatus, to: ContractStatus) => MACHINE[from].next.includes(to);

/**
 * The status a deletion leaves: the contract ends, Terminated, when the machine lets it become Terminated; a final
 * contract (Expired, Terminated) keeps its status.
 */
export const statusOnDeletion = (status: ContractStatus): ContractStatus =>
  mayBecome(status, "Terminated") ? "Terminated" : status;

/** The one rule for every transition: a 409 naming the current and the wanted status when it is not allowed. */
export function assertTransition(from: ContractStatus, to: ContractStatus) {
  if (mayBecome(from, to)) return;
  const { next } = MACHINE[from];
  const allowed = next.length === 0 ? "it is final" : `it may become ${next.join(", ")}`;
  throw conflict(`The contract is ${from} and cannot become ${to}: ${allowed}`, [
    { path: "status", message: `${from} cannot become ${to}` },
  ]);
}
