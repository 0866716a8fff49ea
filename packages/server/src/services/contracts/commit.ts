import type { ContractAmendment, ContractHistoryEntry } from "@billing/shared";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { AmendedTerms } from "../../domain/contracts/amendments.js";
import type { AmendedDealTerms } from "../../domain/contracts/deal-terms.js";
import type { SeatChange } from "../../domain/contracts/seats.js";
import { conflict } from "../../domain/errors.js";
import type { LifecycleState } from "../../repositories/contracts.js";
import type { CallScope } from "../call-scope.js";
import { asReadNow } from "../contract-reads.js";
import { rescheduleFrom } from "./billing-schedule.js";
import { recordMrrCurve } from "./mrr.js";
import { publishEntries } from "./timed-changes.js";

/** How a change of a contract is recorded: announced, checked against what is invoiced, logged, published. */
/** The checks of what is invoiced that a change passed, made again once it has announced itself (see commit). */
export type InvoicedChecks = (() => Promise<void>)[];

/**
 * Records the changes and the state they lead to, as one change of the contract (409 when a concurrent change
 * recorded first), then publishes the events of its entries (lifecycleEventsOf): time's changes', then the caller's.
 * A billing run may have stored an invoice since the change checked what is invoiced: the change announces itself,
 * then checks again (`invoicedChecks`), so that either it sees that invoice (409) or the run sees it in flight or
 * applied (see changedSinceRead) and leaves its invoice a draft, priced again from the contract when finalized.
 */
export async function commit(
  call: CallScope,
  contractId: string,
  version: number,
  entries: ContractHistoryEntry[],
  state: LifecycleState,
  billedFrom: Date | undefined,
  {
    amended,
    terms,
    invoicedChecks = [],
    seatChanges,
    deal,
  }: {
    amended?: ContractAmendment;
    terms?: AmendedTerms;
    invoicedChecks?: InvoicedChecks;
    seatChanges?: SeatChange[];
    deal?: AmendedDealTerms;
  } = {},
) {
  const { repositories, accountId } = call;
  const done = await repositories.contractChangesInFlight.announce(accountId, contractId);
  let saved: ContractInMicros | undefined;
  try {
    for (const check of invoicedChecks) await check();
    saved = await repositories.contracts.applyChange(
      accountId,
      contractId,
      version,
      entries,
      state,
      amended,
      terms,
      seatChanges,
      deal,
    );
  } finally {
    await done();
  }
  if (!saved) throw conflict("The contract was changed concurrently: read it again and retry");
  saved = asReadNow(accountId, saved);
  await recordMrrCurve(call, saved, version + entries.length);
  if (billedFrom) await rescheduleFrom(repositories, contractId, billedFrom);
  await publishEntries(call, entries, saved);
  return saved;
}

/**
 * A past day may be given only where no invoice of the contract covers it: what was invoiced stands (409).
 * A pause a customer asked for last week is entered from today when last week is invoiced.
 */
export async function assertNotInvoiced(
  { repositories, accountId }: CallScope,
  contractId: string,
  day: Date,
  field: "effectiveFrom" | "at" | "endDate",
) {
  const reached = await repositories.invoices.lastCycleEnd(accountId, contractId);
  if (reached && reached > day) {
    throw conflict(`The contract is invoiced up to ${reached.toISOString()}: a change may take effect from then on`, [
      { path: field, message: `must not be before ${reached.toISOString()}` },
    ]);
  }
}
