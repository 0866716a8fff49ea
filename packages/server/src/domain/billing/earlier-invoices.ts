import type { ContractInMicros } from "./contract.js";
import type { InvoiceDraftInMicros } from "./pipeline.js";

/**
 * Whether pricing one of the contract's invoices needs its earlier invoices finalized: a TERM minimum commitment in
 * any version of its deal terms (the term's last invoice sums the others), a seat change after a prepaid cycle
 * (refunded on a later invoice), threshold billing (the cycle's invoice subtracts what its threshold invoices
 * billed). Without any of them a cycle is priced from the contract's terms alone, so a run may store several of the
 * contract's invoices before it finalizes them together (a backlog's cycles in one batch instead of one batch each).
 * Late usage needs it only of an invoice that carries some (carriesLateUsage): an earlier invoice not finalized yet is
 * no original to adjust, and the first invoice priced after it is finalized carries what arrived late for it; but the
 * next look counts what a carrier adjusted, so it must find the carrier stored (docs/decisions.md, "A backlog's
 * cycles").
 */
export const pricedFromEarlierInvoices = (contract: ContractInMicros): boolean =>
  [contract, ...(contract.earlierDealTerms ?? [])].some(
    ({ minimumCommitment }) => minimumCommitment?.period === "TERM",
  ) ||
  (contract.seatChanges ?? []).some((change) => change.late === true) ||
  (contract.billingThresholdsMicros?.length ?? 0) > 0;

/**
 * Whether a priced invoice carries LATE_USAGE lines: the contract's next look for late usage must find it stored, as
 * it counts what its lines adjusted (else a backlog's next cycle, priced in the same batch, adjusts it again).
 */
export const carriesLateUsage = (draft: InvoiceDraftInMicros): boolean =>
  draft.lineItems.some((line) => line.kind === "LATE_USAGE");
