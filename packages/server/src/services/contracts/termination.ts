import type { ContractTermination } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import { startOfUtcDay } from "../../domain/billing/cycles.js";
import { assertTransition } from "../../domain/contracts/status.js";
import type { CallScope } from "../call-scope.js";
import { assertNotInvoiced, commit } from "./commit.js";
import { entryOf, loadForChange, SYSTEM, stateOf } from "./timed-changes.js";

/** The termination of a contract (POST /contracts/{id}/terminate). */
/**
 * Terminates a contract at `at` (default now): Terminated when it has come (billing stops at its day), else
 * PendingTermination until it comes. Publishes `contract.terminated` or `contract.updated`.
 */
export async function terminateContract(
  call: CallScope,
  contractId: string,
  { at, reason }: ContractTermination,
  by: string,
) {
  const { version, current, due } = await loadForChange(call, contractId);
  const now = billingNow(call.accountId);
  const when = at ? new Date(at) : now;
  const status = when > now ? ("PendingTermination" as const) : ("Terminated" as const);
  assertTransition(current.status, status);
  // A future `at` too: a cut inside an invoiced cycle would be keyed by the cut and billed again.
  const notInvoiced = () => assertNotInvoiced(call, current.id, when, "at");
  await notInvoiced();
  const change = { at: now, kind: "transition" as const, from: current.status, to: status };
  return commit(
    call,
    current.id,
    version,
    [...due.map((timed) => entryOf(timed, SYSTEM)), entryOf(change, by)],
    { ...stateOf(current), status, terminationAt: when.toISOString(), ...(reason && { terminationReason: reason }) },
    startOfUtcDay(when),
    { invoicedChecks: [notInvoiced] },
  );
}
