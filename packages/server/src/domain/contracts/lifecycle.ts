import type { Contract, ContractStatus } from "@billing/shared";
import { type ContractLifeFields, enteredAtOf } from "../billing/contract.js";
import { isFinal } from "./status.js";

/** A change that time made: a renewal (with the end of the term it added) or a move to another status. */
export interface TimedChange {
  at: Date;
  kind: "renewal" | "transition";
  from?: ContractStatus;
  to?: ContractStatus;
  endDate?: Date;
}

/**
 * Final statuses stay; an InReview contract never started, and an Error one waits for its failed cycle to bill
 * (its status comes back then): time changes neither.
 */
const untouchedByTime = (status: ContractStatus) => isFinal(status) || status === "InReview" || status === "Error";

const monthIndex = (date: Date) => date.getUTCFullYear() * 12 + date.getUTCMonth();

/** The same day and time `months` later, the day clamped to the month's length (Jan 31 + 1 month = Feb 28/29). */
function addMonths(date: Date, months: number): Date {
  const index = monthIndex(date) + months;
  const year = Math.floor(index / 12);
  const month = index % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const moved = new Date(date);
  moved.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
  return moved;
}

/**
 * The end of the contract's `k`-th term (k = renewals + 1 is its current end). A term is a whole number of months
 * when the end is that many months after the start (same day and time, clamped), else a fixed length in
 * milliseconds; every end is counted from the start, so clamped days never drift.
 */
export function termEnd(contract: Pick<Contract, "startDate" | "endDate" | "renewals">, k: number): Date {
  const start = new Date(contract.startDate);
  const end = new Date(contract.endDate ?? contract.startDate);
  const terms = contract.renewals + 1;
  const months = monthIndex(end) - monthIndex(start);
  if (months > 0 && months % terms === 0 && addMonths(start, months).getTime() === end.getTime())
    return addMonths(start, (months / terms) * k);
  return new Date(start.getTime() + ((end.getTime() - start.getTime()) / terms) * k);
}

/**
 * The contract as time has made it by `now`, and the changes time made on the way, in order: a PendingTermination
 * whose `terminationAt` has come is Terminated; at an end that has come, an `autoRenewContract` contract is renewed
 * for another term of the same length (`renewals` counts them), else it is Expired. Renewal is for an end the
 * contract lives through: one whose end was already past when it was created (a term entered after the fact)
 * expires. A contract with no end never expires; see untouchedByTime for those left as they are. Pure: reads and
 * billing runs both use it.
 */
export function contractAsOf<C extends ContractLifeFields>(
  stored: C,
  now: Date,
): { contract: C; changes: TimedChange[] } {
  // Created Inactive: paused from its start, so that no status it moves to bills a day of it.
  let contract =
    stored.status === "Inactive" && !stored.inactivePeriods?.length
      ? { ...stored, inactivePeriods: [{ from: stored.startDate }] }
      : stored;
  const changes: TimedChange[] = [];
  const time = now.getTime();
  for (;;) {
    if (untouchedByTime(contract.status)) break;
    const end = contract.endDate ? new Date(contract.endDate) : undefined;
    const termination = contract.terminationAt ? new Date(contract.terminationAt) : undefined;
    const terminationDue =
      contract.status === "PendingTermination" &&
      termination &&
      termination.getTime() <= time &&
      !(end && end < termination);
    if (terminationDue) {
      changes.push({ at: termination, kind: "transition", from: contract.status, to: "Terminated" });
      contract = { ...contract, status: "Terminated" };
      continue;
    }
    if (!end || end.getTime() > time) break;
    const livedThrough = enteredAtOf(contract) < end.getTime();
    if (contract.autoRenewContract && livedThrough) {
      const next = termEnd(contract, contract.renewals + 2);
      changes.push({ at: end, kind: "renewal", endDate: next });
      contract = { ...contract, endDate: next.toISOString(), renewals: contract.renewals + 1 };
      continue;
    }
    changes.push({ at: end, kind: "transition", from: contract.status, to: "Expired" });
    contract = { ...contract, status: "Expired" };
  }
  return { contract, changes };
}

/**
 * When time next changes the contract (its end, or its scheduled termination), if ever: a billing run must look at
 * it then, even with no invoice due, to record the change and bill a renewed term.
 */
export function nextTimedChangeAt(contract: ContractLifeFields): Date | undefined {
  if (untouchedByTime(contract.status)) return undefined;
  const moments = [contract.endDate, contract.status === "PendingTermination" ? contract.terminationAt : undefined];
  const times = moments.flatMap((moment) => (moment ? [Date.parse(moment)] : []));
  return times.length > 0 ? new Date(Math.min(...times)) : undefined;
}
