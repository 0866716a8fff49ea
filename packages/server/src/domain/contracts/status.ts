import type { ContractStatus } from "@billing/shared";
import { conflict } from "../errors.js";

/**
 * The statuses each status may move to, by a caller's request or by time. Terminated and Expired are final. `Error`
 * is not stored: it is read from a failed cycle's record (see contractAsOf's caller), so it moves as its status does.
 */
const NEXT: { [From in ContractStatus]: readonly ContractStatus[] } = {
  InReview: ["Active", "Terminated", "Expired"],
  Active: ["Inactive", "PendingTermination", "Terminated", "Expired"],
  Inactive: ["Active", "PendingTermination", "Terminated", "Expired"],
  PendingTermination: ["Terminated", "Expired"],
  Error: ["Active", "Inactive", "PendingTermination", "Terminated", "Expired"],
  Terminated: [],
  Expired: [],
};

export const isFinal = (status: ContractStatus) => NEXT[status].length === 0;

/**
 * The status a read shows: `Error` while one of the contract's cycles has failed to bill (the run's failure record),
 * back to its own status once that cycle bills. A final status stays as it is, as does one that is not billed.
 */
export const shownStatus = (status: ContractStatus, failing: boolean): ContractStatus =>
  failing && (status === "Active" || status === "Inactive" || status === "PendingTermination") ? "Error" : status;

export const mayBecome = (from: ContractStatus, to: ContractStatus) => NEXT[from].includes(to);

/** The one rule for every transition: a 409 naming the current and the wanted status when it is not allowed. */
export function assertTransition(from: ContractStatus, to: ContractStatus) {
  if (mayBecome(from, to)) return;
  const allowed = NEXT[from].length === 0 ? "it is final" : `it may become ${NEXT[from].join(", ")}`;
  throw conflict(`The contract is ${from} and cannot become ${to}: ${allowed}`, [
    { path: "status", message: `${from} cannot become ${to}` },
  ]);
}
