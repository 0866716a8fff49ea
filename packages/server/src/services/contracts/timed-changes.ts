import type { ContractHistoryEntry } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import type { ContractInMicros, ContractLifeFields } from "../../domain/billing/contract.js";
import { contractAsOf, type TimedChange } from "../../domain/contracts/lifecycle.js";
import { lifecycleEventsOf } from "../../domain/contracts/lifecycle-events.js";
import { notFound } from "../../domain/errors.js";
import { presentContract } from "../../presenters/contracts.js";
import type { LifecycleState } from "../../repositories/contracts.js";
import type { CallScope } from "../call-scope.js";
import { asReadNow } from "../contract-reads.js";
import { publishChange } from "../webhook-events.js";

/**
 * The changes time makes to a contract (renewals, expiry, a scheduled termination): applied in memory by every read
 * and change (loadForChange), recorded by billing runs before they bill the contract (recordTimedChanges).
 */

/** Who made a change time made (a renewal, an expiry, a scheduled termination), in the history's `by`. */
export const SYSTEM = "system";

/** A change as the contract's history records it. */
export const entryOf = ({ at, kind, from, to, endDate }: TimedChange, by: string): ContractHistoryEntry => ({
  at: at.toISOString(),
  kind,
  ...(from && { from }),
  ...(to && { to }),
  ...(endDate && { endDate: endDate.toISOString() }),
  by,
});

/** The lifecycle fields a recorded change leaves the contract with. */
export const stateOf = ({
  status,
  endDate,
  renewals,
  terminationAt,
  terminationReason,
  inactivePeriods,
}: ContractLifeFields): LifecycleState => ({
  status,
  renewals,
  ...(endDate && { endDate }),
  ...(terminationAt && { terminationAt }),
  ...(terminationReason && { terminationReason }),
  ...(inactivePeriods && { inactivePeriods }),
});

/** The live contract, time's changes applied in memory, and what a change of it starts from. */
export async function loadForChange({ repositories, accountId }: CallScope, contractId: string) {
  const found = await repositories.contracts.getForChange(accountId, contractId);
  if (!found) throw notFound("Contract");
  const { contract, changes } = contractAsOf(found.stored, billingNow(accountId));
  return { ...found, current: contract, due: changes };
}

/** Publishes the events of recorded history entries (lifecycleEventsOf), with the contract as they left it. */
export async function publishEntries(call: CallScope, entries: ContractHistoryEntry[], saved: ContractInMicros) {
  for (const type of lifecycleEventsOf(entries))
    await publishChange(call.repositories, call.accountId, call.log, { type, data: presentContract(saved) });
}

/**
 * Records the changes time made to a contract by `now` (renewals, expiry, a scheduled termination) and publishes
 * their events: billing runs call it before billing the contract. A change recorded concurrently (by a request
 * or another run) wins; this one then leaves it be, as reads show the same state anyway. True when time had changes
 * to record: the contract read before is then out of date.
 */
export async function recordTimedChanges(
  call: CallScope,
  stored: ContractInMicros,
  version: number,
  now: Date,
): Promise<boolean> {
  const { contract, changes } = contractAsOf(stored, now);
  if (changes.length === 0) return false;
  const entries = changes.map((timed) => entryOf(timed, SYSTEM));
  const { repositories, accountId } = call;
  const saved = await repositories.contracts.applyChange(accountId, stored.id, version, entries, stateOf(contract));
  if (saved) await publishEntries(call, entries, asReadNow(accountId, saved));
  return true;
}
