import { DEFAULT_LATE_USAGE } from "@billing/shared";
import { billingNow } from "../../billing-clock.js";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import { BEFORE_EVERYTHING } from "../../domain/billing/cycles.js";
import type { PaymentTerms } from "../../domain/billing/invoice.js";
import { billingTimeline, type CycleLookup, cycleLookup, type PlannedInvoice } from "../../domain/billing/items.js";
import { lateLooksAfterEnd } from "../../domain/billing/late-after-end.js";
import { pricesUsage } from "../../domain/billing/late-usage.js";
import { billedContract } from "../../domain/contracts/billed.js";
import { nextTimedChangeAt } from "../../domain/contracts/lifecycle.js";
import { withoutPausedCharges } from "../../domain/contracts/pauses.js";
import { NEVER_DUE, type ScheduleDoc } from "../../repositories/billing-runs.js";
import { asReadNow, readContractIncludingDeleted } from "../contract-reads.js";
import { recordTimedChanges } from "../contracts/timed-changes.js";
import { paymentTermsOf } from "./invoice-basis.js";
import { ABANDONED_AFTER_MS, type BillingPass } from "./pass.js";

/** A contract's share of one pass: its invoices to make, how many the pass went through, and its next due moment. */
export interface ContractPlan {
  contract: ContractInMicros;
  paymentTerms: PaymentTerms;
  invoices: PlannedInvoice[];
  attempted: number;
  nextDueAt: Date;
  /** Its cycles up to the run's `at`, planned once for every late-usage look of the pass (cycleLookup). */
  cycles: CycleLookup;
  /** Its cycles are over and invoiced: the run looks for late usage of them (late-after-end.ts), as of this moment. */
  lateLook?: Date;
}

/**
 * What the pass has to do for a scheduled contract: its invoices ready since the schedule's `nextDueAt`, in ready
 * order; none when it is not billed (its schedule moves to NEVER_DUE). An older schedule is first rewound to the
 * contract's start (see ScheduleDoc.checkedFromStart): its invoices are checked one by one and those missing made.
 */
export async function planContract(pass: BillingPass, schedule: ScheduleDoc): Promise<ContractPlan | undefined> {
  const { repositories, accountId, at } = pass;
  const contractId = schedule._id;
  const live = await repositories.contracts.getForChange(accountId, contractId.toHexString());
  const changed = live && (await recordTimedChanges(pass, live.stored, live.version, billingNow(accountId, pass.now)));
  // Read again only when time changed it (or raced another change), or to find it deleted.
  const found =
    live && !changed
      ? asReadNow(accountId, live.stored)
      : await readContractIncludingDeleted(repositories, accountId, contractId.toHexString());
  if (!found) {
    if (schedule.createdAt.getTime() < pass.now.getTime() - ABANDONED_AFTER_MS)
      await repositories.billingRuns.unschedule(contractId);
    return undefined;
  }
  let scheduledAt = schedule.nextDueAt;
  if (!schedule.checkedFromStart) {
    await repositories.billingRuns.rewind(contractId, BEFORE_EVERYTHING);
    scheduledAt = BEFORE_EVERYTHING;
  }
  const contract = billedContract(found);
  if (!contract) {
    await repositories.billingRuns.advance(contractId, nextTimedChangeAt(found) ?? NEVER_DUE);
    return undefined;
  }
  if (!pass.plannedUnder.has(contractId.toHexString())) pass.run.contractsBilled += 1;
  const paymentTerms = await paymentTermsOf(repositories, accountId, contract);
  const { due, nextDueAt } = billingTimeline(contract, at, pass.graceMs);
  const invoices = withoutPausedCharges(contract, due).filter((candidate) => candidate.readyAt >= scheduledAt);
  // Its cycles are over: late usage of its last ones is looked for after them (a look waits for invoices still due).
  const looks = nextDueAt ? {} : await looksAfterEnd(pass, contract, due, scheduledAt);
  const lateLook = invoices.length === 0 ? looks.due : undefined;
  const following = nextDueAt ?? (lateLook ? undefined : looks.due) ?? looks.next;
  const next = [following, nextTimedChangeAt(found)].flatMap((moment) => (moment ? [moment.getTime()] : []));
  const nextMoment = next.length > 0 ? new Date(Math.min(...next)) : NEVER_DUE;
  const cycles = cycleLookup(contract, at);
  return {
    contract,
    paymentTerms,
    invoices,
    nextDueAt: nextMoment,
    attempted: 0,
    cycles,
    ...(lateLook && { lateLook }),
  };
}

/**
 * The late-usage looks of a contract whose cycles are over (domain/billing/late-after-end.ts), from its last cycle's
 * ready moment and the account's window; none when its terms price no usage or the account ignores late usage.
 */
async function looksAfterEnd(
  pass: BillingPass,
  contract: ContractInMicros,
  due: PlannedInvoice[],
  from: Date,
): Promise<{ due?: Date; next?: Date }> {
  const last = Math.max(...due.map(({ readyAt }) => readyAt.getTime()));
  if (due.length === 0 || !pricesUsage(contract)) return {};
  const { policy, windowDays } =
    (await pass.repositories.accounts.get(pass.accountId))?.lateUsage ?? DEFAULT_LATE_USAGE;
  if (policy === "IGNORE") return {};
  return lateLooksAfterEnd(new Date(last), { draftMs: pass.draftMs, windowDays }, from, pass.at);
}

/**
 * Where a contract's schedule goes after the pass: the first invoice the pass did not go through, never past it
 * (its invoices are in ready order, so every invoice not made is ready at or after it), else its next due moment.
 */
export const scheduleAfter = (plan: ContractPlan) => plan.invoices[plan.attempted]?.readyAt ?? plan.nextDueAt;
