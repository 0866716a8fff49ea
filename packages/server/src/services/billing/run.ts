import { setTimeout } from "node:timers/promises";
import type { BillingRun } from "@billing/shared";
import { ObjectId } from "mongodb";
import { billingNow } from "../../billing-clock.js";
import { batchSize, horizonOf, nextClaimWait } from "../../domain/billing/claims.js";
import { BEFORE_EVERYTHING } from "../../domain/billing/cycles.js";
import { carriesLateUsage, pricedFromEarlierInvoices } from "../../domain/billing/earlier-invoices.js";
import { byRunOrder } from "../../domain/billing/items.js";
import { badRequest } from "../../domain/errors.js";
import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { expireDueCredits } from "../credit-ledger.js";
import { issueDueForAccount } from "../credit-recurrences.js";
import type { WorkSource } from "./accounts-with-work.js";
import { anyToSettle, settleDrafts } from "./drafts.js";
import { claimDueWork, type DueWork, untilReleased } from "./due-work.js";
import { retryFailure } from "./failure-retry.js";
import { adjustAfterEnd } from "./late-after-end.js";
import { invoiceIdFor, type PricedInvoice } from "./make-invoice.js";
import { numberInvoicesStoredBeforeLife } from "./numbering-repair.js";
import { BillingPass, RUN_LIMITS, type RunLimits } from "./pass.js";
import { readOncePerPass } from "./pass-reads.js";
import { completePayment } from "./payment-repair.js";
import { type ContractPlan, planContract, scheduleAfter } from "./scheduling.js";

export { RUN_LIMITS, type RunLimits };

/** How far past the server's clock a run's `at` may be: clocks of callers and servers differ a little. */
export const RUN_CLOCK_SLACK_MS = 5 * 60_000;

/** Runs store invoices and debit credits, which cannot be undone: they stay in the present. */
export function assertNotInFuture(at: Date, now: Date) {
  if (at.getTime() > now.getTime() + RUN_CLOCK_SLACK_MS) {
    throw badRequest(
      `at must not be later than now (${now.toISOString()}, with ${RUN_CLOCK_SLACK_MS / 60_000} minutes of slack): ` +
        `a run bills what is due, and its invoices cannot be undone`,
      [{ path: "at", message: "is in the future" }],
    );
  }
}

/**
 * Makes the invoices of the contracts the pass claimed (due-work.ts), all of them together in ready order
 * (`byRunOrder`), so that credits pay a customer's invoices in the order they were issued however often runs happen;
 * a customer's invoices ready after its horizon (claims.ts: a due contract the pass does not work on) wait for a later
 * pass. The batch's contracts are read together first, and then what their invoices read (pass-reads.ts); invoices
 * are priced, then stored and finalized `invoicesPerFinish` at a time (BillingPass.finish), a contract's next invoice
 * priced only after its earlier one is finalized when its terms read earlier invoices (pricedFromEarlierInvoices).
 * Then moves every schedule in one write.
 */
async function billDue(pass: BillingPass, { claimed, horizons }: DueWork, firstBatch: boolean) {
  // Nothing claimed (all held by other calls): nothing to read for it, not even the account's late-usage window.
  if (claimed.length === 0) return;
  const { limits, reads, accountId } = pass;
  await reads.contractsForChange(
    accountId,
    claimed.map(({ _id }) => _id.toHexString()),
  );
  const plans: ContractPlan[] = [];
  for (const schedule of claimed) {
    const plan = await planContract(pass, schedule);
    if (plan) plans.push(plan);
  }
  const queue = plans
    .flatMap((plan) => {
      const horizon = horizonOf(horizons, plan.contract.customerId);
      pass.plannedUnder.set(plan.contract.id, horizon?.getTime());
      return plan.invoices
        .slice(0, limits.cycleChecksPerCall)
        .filter((planned) => !horizon || planned.readyAt <= horizon)
        .map((planned) => ({ plan, contractId: plan.contract.id, cycle: planned }));
    })
    .sort(byRunOrder);
  await reads.prefetch(accountId, {
    at: pass.at,
    contracts: plans.map(({ contract }) => contract),
    cycleLookups: new Map(plans.map(({ contract, cycles }) => [contract.id, cycles])),
    draftMs: pass.draftMs,
    cycles: queue.map(({ plan, cycle }) => ({
      contract: plan.contract,
      cycle,
      invoiceId: invoiceIdFor(accountId, plan.contract.id, cycle.key),
    })),
  });
  let toFinish: Parameters<BillingPass["finish"]>[0] = [];
  // Customers with an invoice left for a later call: their later invoices wait too (credits pay in ready order).
  const leftOver = new Set<string>();
  for (const { plan, cycle } of queue) {
    const { customerId } = plan.contract;
    const contractsFirst = firstBatch && plan.attempted === 0;
    if (leftOver.has(customerId) || !pass.mayStartInvoice(contractsFirst)) {
      leftOver.add(customerId);
      continue;
    }
    // A contract's next invoice is priced from its earlier ones finalized when its terms read them (a TERM commitment,
    // a late seat change, thresholds), or when an earlier one carries late usage (the next look counts what it
    // adjusted): then those of the batch are finalized first.
    const readsEarlier = pricedFromEarlierInvoices(plan.contract);
    const waitFor = ({ contract, draft }: PricedInvoice) =>
      contract.id === plan.contract.id && (readsEarlier || carriesLateUsage(draft));
    if (toFinish.some(waitFor)) {
      await pass.finish(toFinish);
      toFinish = [];
    }
    const outcome = await pass.price(plan.contract, cycle, plan.paymentTerms, true, plan.cycles);
    if (outcome?.priced) toFinish.push({ ...outcome.priced, planned: cycle });
    plan.attempted += 1;
    if (toFinish.length < limits.invoicesPerFinish) continue;
    await pass.finish(toFinish);
    toFinish = [];
  }
  await pass.finish(toFinish);
  for (const plan of plans) {
    // Its cycles over: late usage of its last invoices (a failed look is tried again by the next run).
    if (plan.lateLook && !(await adjustAfterEnd(pass, plan, plan.lateLook))) plan.nextDueAt = plan.lateLook;
  }
  await reads.closeBatch(pass.accountId);
  if (plans.some((plan) => plan.attempted < plan.invoices.length)) pass.run.hasMore = true;
  await pass.repositories.billingRuns.advanceMany(
    plans.map((plan) => ({ contractId: new ObjectId(plan.contract.id), nextDueAt: scheduleAfter(plan) })),
  );
}

/**
 * Claims and bills the due contracts a batch at a time (due-work.ts) while the pass's limits allow (claims stop after
 * RUN_LIMITS.claimingMs), each batch no larger than the call can bill in its time left (batchSize). When the only due
 * work left is held by other live calls, waits for them (untilReleased) until all are released (holdersWaitMs),
 * then looks whether anything is still due — so that a call whose last work was another call's answers `hasMore:
 * false` itself, not its loop's next call — and claims what is (while claims may be made). Anything still due or held
 * means hasMore.
 */
async function billClaimedBatches(pass: BillingPass) {
  const { limits, repositories, accountId, at } = pass;
  let claimedSoFar = 0;
  let billingMs = 0;
  let waitMs: number | undefined;
  for (;;) {
    const made = pass.run.invoiceIds.length;
    const share = Math.min(limits.contractsPerClaim, limits.invoicesPerCall - claimedSoFar);
    const wanted = batchSize(share, pass.msLeft("budget"), made > 0 ? billingMs / made : undefined);
    const firstBatch = claimedSoFar === 0;
    const work = await claimDueWork(pass, wanted);
    claimedSoFar += work.won;
    const started = performance.now();
    await billDue(pass, work, firstBatch);
    billingMs += performance.now() - started;
    if (!work.leftOver && work.held === 0) return;
    const claiming = pass.mayClaimMore(claimedSoFar);
    if (claiming) {
      // More to claim now: the next batch at once. Due work past what this look could claim (its claims lost to
      // another call, or pages not read): a look again soon.
      waitMs = work.won > 0 ? undefined : nextClaimWait(waitMs);
      if (waitMs === undefined) continue;
      if (work.leftOver) {
        await setTimeout(waitMs);
        continue;
      }
    } else if (work.leftOver || pass.run.hasMore) {
      pass.run.hasMore = true;
      return;
    }
    // Only other calls' work left. Their holders release a claim once they billed its contract (or ran out of time,
    // their loop's next call taking it again), so a look at the due work after one release mostly finds it billed:
    // the pass waits for all of them (until it is RUN_LIMITS.holdersWaitMs old, past its budget too), then one read
    // says whether anything is due — nothing means done; work released unbilled is claimed while claims may be made,
    // else left to a later call (hasMore).
    const released = await untilReleased(pass, work.heldIds, pass.msLeft("holders"));
    const stillDue = !released || (await repositories.billingRuns.due(accountId, at, 1)).length > 0;
    if (stillDue && released && pass.mayClaimMore(claimedSoFar)) continue;
    pass.run.hasMore ||= stillDue;
    return;
  }
}

/**
 * Makes the account's invoices due up to `at`, within the limits of one call (RUN_LIMITS): `hasMore` says
 * whether invoices (or expirations) may remain, so the caller calls again. Each call first completes debits left
 * without their invoice (payment-repair.ts), retries failed invoices whose time has come (failure-retry.ts), issues
 * the recurring grants' periods started by now and writes the credit expirations that have come by now, rewinds
 * schedules an earlier version left (ScheduleDoc.checkedFromStart), and numbers invoices stored before the invoice
 * life (numbering-repair.ts); then it finalizes or re-prices the drafts (drafts.ts) and makes the invoices of the
 * contracts due (billDue), claiming them a batch at a time (due-work.ts) so that concurrent calls split them.
 * Idempotent, and safe to run concurrently. `workIn`: the sources a look across accounts just found work in for the
 * account (the scheduler's: accounts-with-work.ts); the others are not read (work come since waits for the next
 * look). Without it, every source is read, drafts and invoices to number only once one read found any.
 */
export async function runBilling(
  repositories: Repositories,
  accountId: string,
  at: Date,
  log: Logger,
  {
    graceMs,
    draftMs,
    now = new Date(),
    limits = RUN_LIMITS,
    workIn,
  }: { graceMs: number; draftMs: number; now?: Date; limits?: RunLimits; workIn?: ReadonlySet<WorkSource> },
): Promise<BillingRun> {
  // Billing's now (a test account's clock) for what is due; `now` stays the instant for time budgets and retries.
  const billedNow = billingNow(accountId, now);
  assertNotInFuture(at, billedNow);
  const pass = new BillingPass(readOncePerPass(repositories), accountId, at, now, log, graceMs, draftMs, limits);
  const { billingRuns } = repositories;
  const has = (source: WorkSource) => workIn?.has(source) ?? true;
  if (has("payments"))
    for (const payment of await billingRuns.pendingPayments(accountId, limits.repairsPerCall))
      await completePayment(pass, payment);
  if (has("failures"))
    for (const failure of await billingRuns.failuresToRetry(accountId, now, limits.repairsPerCall))
      await retryFailure(pass, failure);
  if (has("recurringGrants") && (await issueDueForAccount({ repositories, accountId, log }, billedNow)))
    pass.run.hasMore = true;
  if (
    has("expirations") &&
    (await expireDueCredits({ repositories, accountId, log }, billedNow, limits.expirationsPerCall))
  )
    pass.run.hasMore = true;
  if (has("schedules")) {
    const endedUnchecked = await billingRuns.endedUnchecked(accountId, limits.repairsPerCall);
    for (const ended of endedUnchecked) await billingRuns.rewind(ended._id, BEFORE_EVERYTHING);
    if (endedUnchecked.length === limits.repairsPerCall) pass.run.hasMore = true;
  }
  if (workIn ? workIn.has("invoices") : await anyToSettle(pass)) {
    await numberInvoicesStoredBeforeLife(pass);
    await settleDrafts(pass);
    pass.forgetClaims();
  }
  if (has("schedules")) {
    try {
      await billClaimedBatches(pass);
    } finally {
      if (pass.claiming) await repositories.billingClaims.release(pass.holder);
    }
  }
  const { run } = pass;
  run.invoicesCreated = run.invoiceIds.length;
  return run;
}
