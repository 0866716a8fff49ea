import { BILLED_CONTRACT_STATUSES as BILLABLE } from "@billing/shared";
import { ObjectId } from "mongodb";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import { billingTimeline, type PlannedInvoice } from "../../domain/billing/items.js";
import { NEVER_DUE, type ScheduleDoc } from "../../repositories/billing-runs.js";
import type { Repositories } from "../../repositories/index.js";
import { type PaymentTerms, paymentTermsOf } from "./invoice-basis.js";
import { ABANDONED_AFTER_MS, type BillingPass } from "./pass.js";

/** Before every cycle of every contract (the earliest instant a Date holds). */
export const BEFORE_EVERYTHING = new Date(-8.64e15);

/** Records when a new contract's first invoice can fall due: runs find the contract from then on. */
export async function scheduleBilling(repositories: Repositories, accountId: string, contract: ContractInMicros) {
  const firstDue = BILLABLE.has(contract.status) ? billingTimeline(contract, BEFORE_EVERYTHING).nextDueAt : undefined;
  await repositories.billingRuns.schedule(accountId, new ObjectId(contract.id), firstDue ?? NEVER_DUE);
}

/** A contract's share of one pass: its invoices to make, how many the pass went through, and its next due moment. */
export interface ContractPlan {
  contract: ContractInMicros;
  paymentTerms: PaymentTerms;
  invoices: PlannedInvoice[];
  attempted: number;
  nextDueAt: Date;
}

/**
 * What the pass has to do for a scheduled contract: its invoices ready since the schedule's `nextDueAt`, in ready
 * order; none when it is not billed (its schedule moves to NEVER_DUE). An older schedule is first rewound to the
 * contract's start (see ScheduleDoc.checkedFromStart): its invoices are checked one by one and those missing made.
 */
export async function planContract(pass: BillingPass, schedule: ScheduleDoc): Promise<ContractPlan | undefined> {
  const { repositories, accountId, at } = pass;
  const contractId = schedule._id;
  const contract = await repositories.contracts.getIncludingDeleted(accountId, contractId.toHexString());
  if (!contract) {
    if (schedule.createdAt.getTime() < pass.now.getTime() - ABANDONED_AFTER_MS)
      await repositories.billingRuns.unschedule(contractId);
    return undefined;
  }
  let scheduledAt = schedule.nextDueAt;
  if (!schedule.checkedFromStart) {
    await repositories.billingRuns.rewind(contractId, BEFORE_EVERYTHING);
    scheduledAt = BEFORE_EVERYTHING;
  }
  if (contract.deletedAt || !BILLABLE.has(contract.status)) {
    await repositories.billingRuns.advance(contractId, NEVER_DUE);
    return undefined;
  }
  pass.run.contractsBilled += 1;
  const paymentTerms = await paymentTermsOf(repositories, accountId, contract);
  const { due, nextDueAt } = billingTimeline(contract, at, pass.graceMs);
  const invoices = due.filter((candidate) => candidate.readyAt >= scheduledAt);
  return { contract, paymentTerms, invoices, nextDueAt: nextDueAt ?? NEVER_DUE, attempted: 0 };
}

/**
 * Where a contract's schedule goes after the pass: the first invoice the pass did not go through, never past it
 * (its invoices are in ready order, so every invoice not made is ready at or after it), else its next due moment.
 */
export const scheduleAfter = (plan: ContractPlan) => plan.invoices[plan.attempted]?.readyAt ?? plan.nextDueAt;
