import type { Contract, ContractStatus } from "@billing/shared";
import { type ContractLifeFields, enteredAtOf } from "../billing/contract.js";
import { changedByTime, statusByTime } from "./status.js";

/** A change that time made: a renewal (with the end of the term it added) or a move to another status. */
export interface TimedChange {
  at: Date;
  kind: "renewal" | "transition";
  from?: ContractStatus;
  to?: ContractStatus;
  endDate?: Date;
}

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
 * The contract as time has made it by `now`, and the changes time made on the way, in order, as the contract's
 * machine says time makes them (domain/contracts/status.ts): a contract whose scheduled termination has come becomes
 * what its status becomes then (a PendingTermination, Terminated), unless its term ended first; at an end that has
 * come, an `autoRenewContract` contract is renewed for another term of the same length (`renewals` counts them), else
 * it becomes what its status becomes at its end (Expired). Renewal is for an end the contract lives through: one whose
 * end was already past when it was created (a term entered after the fact) expires. A contract with no end never
 * expires; one whose status time does not change stays as it is. Pure: reads and billing runs both use it.
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
    if (!changedByTime(contract.status)) break;
    const end = contract.endDate ? new Date(contract.endDate) : undefined;
    const termination = contract.terminationAt ? new Date(contract.terminationAt) : undefined;
    const terminated = statusByTime(contract.status, "atTermination");
    if (terminated && termination && termination.getTime() <= time && !(end && end < termination)) {
      changes.push({ at: termination, kind: "transition", from: contract.status, to: terminated });
      contract = { ...contract, status: terminated };
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
    const ended = statusByTime(contract.status, "atEnd");
    if (!ended) break;
    changes.push({ at: end, kind: "transition", from: contract.status, to: ended });
    contract = { ...contract, status: ended };
  }
  return { contract, changes };
}

/**
 * When time next changes the contract (its end, or its scheduled termination), if ever: a billing run must look at
 * it then, even with no invoice due, to record the change and bill a renewed term.
 */
export function nextTimedChangeAt(contract: ContractLifeFields): Date | undefined {
  if (!changedByTime(contract.status)) return undefined;
  const scheduled = statusByTime(contract.status, "atTermination") ? contract.terminationAt : undefined;
  const moments = [contract.endDate, scheduled];
  const times = moments.flatMap((moment) => (moment ? [Date.parse(moment)] : []));
  return times.length > 0 ? new Date(Math.min(...times)) : undefined;
}
