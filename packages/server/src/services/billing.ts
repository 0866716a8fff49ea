import { createHash } from "node:crypto";
import {
  BILLED_CONTRACT_STATUSES as BILLABLE,
  type BillingRun,
  type Contract,
  type InvoiceDraft,
  invoiceDraft,
  toMicros,
} from "@billing/shared";
import { ObjectId } from "mongodb";
import { DAY_MS, dayKey, startOfUtcDay } from "../domain/billing/cycles.js";
import { composeInvoice, usagePeriod } from "../domain/billing/invoice.js";
import { billingTimeline, byRunOrder, type InvoiceCycle, invoiceCycles } from "../domain/billing/items.js";
import { badRequest, conflict, DomainError, notFound, zodIssues } from "../domain/errors.js";
import type { Logger } from "../logger.js";
import {
  type BillingFailureDoc,
  NEVER_DUE,
  type PendingPaymentDoc,
  type ScheduleDoc,
} from "../repositories/billing-runs.js";
import type { Repositories } from "../repositories/index.js";
import { expireDueCredits, payInvoiceFromCredits } from "./credit-ledger.js";
import { usageOf } from "./usage.js";
import { publishChange } from "./webhook-events.js";

/** How far past the server's clock a run's `at` may be: clocks of callers and servers differ a little. */
export const RUN_CLOCK_SLACK_MS = 5 * 60_000;

/**
 * The work one call of a billing run may do, so that it answers in seconds whatever the backlog: it stops
 * starting invoices after any limit and answers `hasMore: true`, and the caller calls again.
 */
export const RUN_LIMITS = {
  invoicesPerCall: 100,
  /**
   * Cycles looked at, an invoice found already made included (it does not count as started): bounds the check of
   * a schedule rewound to its contract's start (see ScheduleDoc.checkedFromStart).
   */
  cycleChecksPerCall: 1_000,
  timeBudgetMs: 3_000,
  /** Left-over debits completed, and failed invoices retried, at the start of each call (each at most). */
  repairsPerCall: 20,
  /** Grants whose expiry has come, written by each call (at most): payments and reads write them anyway. */
  expirationsPerCall: 100,
};

export type RunLimits = typeof RUN_LIMITS;

/** A failed invoice is tried again by runs an hour later or more: a lasting cause is not hammered on. */
const FAILURE_RETRY_MS = 60 * 60_000;

/** A schedule older than this without its contract belongs to a creation that stopped before the insert. */
const ABANDONED_AFTER_MS = 10 * 60_000;

/** Before every cycle of every contract (the earliest instant a Date holds). */
const BEFORE_EVERYTHING = new Date(-8.64e15);

/**
 * The id of a contract's invoice, derived from the contract and the invoice's cycle key: every step of every
 * run names the same invoice, so the credit debit (keyed by invoice) happens once, and a debit left behind by
 * a crash is found again. Its bytes are a hash: it says nothing of order (lists follow the invoice's `seq`).
 */
export function invoiceIdFor(accountId: string, contractId: string, cycleKey: string): ObjectId {
  const digest = createHash("sha256").update(`${accountId}/${contractId}/${cycleKey}`).digest();
  return new ObjectId(digest.subarray(0, 12));
}

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

/** Records when a new contract's first invoice can fall due: runs find the contract from then on. */
export async function scheduleBilling(repositories: Repositories, accountId: string, contract: Contract) {
  const firstDue = BILLABLE.has(contract.status) ? billingTimeline(contract, BEFORE_EVERYTHING).nextDueAt : undefined;
  await repositories.billingRuns.schedule(accountId, new ObjectId(contract.id), firstDue ?? NEVER_DUE);
}

/**
 * An invoice the service can store (amounts within the money rule), or a 409 saying which figure is out of bounds:
 * the request is valid, the stored contract is what cannot be invoiced (several products above the ceiling together).
 */
function withinLimits(draft: InvoiceDraft): InvoiceDraft {
  const checked = invoiceDraft.safeParse(draft);
  if (checked.success) return draft;
  const issues = zodIssues(checked.error);
  const figures = issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
  throw conflict(`The invoice is outside the service's limits (${figures})`, issues);
}

/** The customer's due days: read once per contract, whatever the number of its cycles. */
async function dueDaysOf(repositories: Repositories, accountId: string, contract: Contract) {
  return (await repositories.customers.get(accountId, contract.customerId))?.dueDays;
}

type DueDays = Awaited<ReturnType<typeof dueDaysOf>>;

/**
 * What a cycle's invoice needs besides the contract and the due days: each charge's usage of each of its meters
 * over the charge's usage period (see usageOf), up to the day of `until` when given (a preview: usage so far).
 */
async function billingInputs(
  repositories: Repositories,
  accountId: string,
  contract: Contract,
  cycle: InvoiceCycle,
  dueDays: DueDays,
  until?: Date,
) {
  const usage = await Promise.all(
    cycle.charges.map(async ({ item, cycle: itemCycle }) => {
      const period = usagePeriod(contract, itemCycle);
      const dayAfterUntil = until && dayKey(new Date(startOfUtcDay(until).getTime() + DAY_MS));
      const toDayExclusive =
        dayAfterUntil && dayAfterUntil < period.toDayExclusive ? dayAfterUntil : period.toDayExclusive;
      const values = await Promise.all(
        item.meters.map(async (meter) => {
          if (period.fromDay >= toDayExclusive) return [meter, 0n] as const;
          return [
            meter,
            (await usageOf(repositories, accountId, contract.customerId, meter, period.fromDay, toDayExclusive))
              .valueMicros,
          ] as const;
        }),
      );
      return new Map(values);
    }),
  );
  return { contract, cycle, usage, dueDays };
}

/**
 * The order in which invoices running at the same moment are previewed: the one ending first, and of those the
 * arrears one (still accruing: the invoice a customer asks about) before the prepaid one (issued at its start).
 */
const previewOrder = (a: InvoiceCycle, b: InvoiceCycle) =>
  a.end.getTime() - b.end.getTime() || Number(a.prepaid) - Number(b.prepaid) || (a.key < b.key ? -1 : 1);

/**
 * The invoice of the contract's cycle running at `at`, with the credits available now; stored nowhere. When several
 * run, the first in `previewOrder` that bills something (a prepaid one-time product's later cycles bill nothing).
 * It may look ahead: nothing is written.
 */
export async function previewInvoice(
  repositories: Repositories,
  accountId: string,
  contractId: string,
  at: Date,
): Promise<InvoiceDraft> {
  const contract = await repositories.contracts.get(accountId, contractId);
  if (!contract) throw notFound("Contract");
  const running = invoiceCycles(contract, at)
    .filter((candidate) => candidate.start <= at && at < candidate.end)
    .sort(previewOrder);
  const dueDays = await dueDaysOf(repositories, accountId, contract);
  let first: InvoiceDraft | undefined;
  for (const cycle of running) {
    const creditBalanceMicros = await repositories.credits.payableAt(accountId, contract.customerId, cycle.dueAt);
    const inputs = await billingInputs(repositories, accountId, contract, cycle, dueDays, at);
    const invoice = withinLimits(composeInvoice({ ...inputs, creditBalanceMicros }));
    if (invoice.lineItems.length > 0) return invoice;
    first ??= invoice;
  }
  if (first) return first;
  // 404, as for an invoice that does not exist: the request is valid, there is just no cycle to preview at `at`.
  const message = `The contract has no billing cycle at ${at.toISOString()}`;
  throw new DomainError("NOT_FOUND", message, [{ path: "at", message: "outside the contract's cycles" }]);
}

/** What billing a cycle found: its invoice already made, or not (then `created` is its id if this call stored it). */
interface CycleOutcome {
  alreadyInvoiced: boolean;
  created?: string;
}

/**
 * Makes one invoice of a contract, once. Steps, each safe to repeat after a crash or alongside a concurrent run:
 * (1) skip when the invoice exists or would be empty; (2) note the payment as pending, then pay what the grants
 * that may pay it (effective and not expired at its issue time) can, in whole cents, debited once per invoice id
 * (`spendCredits: false` only picks up a debit made before); (3) insert the invoice under its derived id, carrying
 * exactly the credits debited, and close the pending payment.
 */
async function billCycle(
  repositories: Repositories,
  accountId: string,
  contract: Contract,
  cycle: InvoiceCycle,
  options: { dueDays: DueDays; spendCredits: boolean; log: Logger },
): Promise<CycleOutcome> {
  const invoiceId = invoiceIdFor(accountId, contract.id, cycle.key);
  if (await repositories.invoices.get(accountId, invoiceId.toHexString())) return { alreadyInvoiced: true };
  const inputs = await billingInputs(repositories, accountId, contract, cycle, options.dueDays);
  const unpaid = withinLimits(composeInvoice({ ...inputs, creditBalanceMicros: 0 }));
  // Nothing to bill this cycle (e.g. a one-time product after its first cycle): no invoice.
  if (unpaid.lineItems.length === 0) return { alreadyInvoiced: false };
  const available = options.spendCredits
    ? await repositories.credits.payableAt(accountId, contract.customerId, cycle.dueAt)
    : 0;
  const maxMicros = Math.min(available, toMicros(unpaid.revenueBreakdown.total));
  if (maxMicros > 0) {
    await repositories.billingRuns.openPayment({
      _id: invoiceId,
      accountId,
      contractId: contract.id,
      cycleKey: cycle.key,
      cycleStart: cycle.start,
    });
  }
  const scope = { repositories, accountId, log: options.log };
  const { spentMicros } = await payInvoiceFromCredits(scope, contract.customerId, {
    invoiceId: invoiceId.toHexString(),
    contractId: contract.id,
    issuedAt: cycle.dueAt,
    maxMicros,
  });
  const draft = spentMicros ? composeInvoice({ ...inputs, creditBalanceMicros: spentMicros }) : unpaid;
  const meterKeys = [...new Set(cycle.charges.flatMap(({ item }) => item.meters))];
  const { created, invoice } = await repositories.invoices.insert(accountId, draft, {
    id: invoiceId,
    cycleKey: cycle.key,
    meterKeys,
  });
  if (maxMicros > 0 || spentMicros) await repositories.billingRuns.closePayment(invoiceId);
  if (created) await publishChange(repositories, accountId, options.log, { type: "invoice.created", data: invoice });
  return created ? { alreadyInvoiced: false, created: invoiceId.toHexString() } : { alreadyInvoiced: true };
}

/** The contract's invoice of a stored cycle key (whose cycle starts at `cycleStart`), if the contract still has it. */
const cycleOf = (contract: Contract, cycleKey: string, cycleStart: Date) =>
  invoiceCycles(contract, cycleStart).find((cycle) => cycle.key === cycleKey);

const INTERNAL_FAILURE_MESSAGE =
  "The invoice could not be made because of an internal error; the server log has the cause";

/** What a failure says to the caller: a DomainError's message as it is, never any other (it goes to the log). */
const publicMessage = (error: unknown) => (error instanceof DomainError ? error.message : INTERNAL_FAILURE_MESSAGE);

/** One call of a billing run: its answer, and what it may still do. */
class RunCall {
  readonly run: BillingRun;
  private readonly deadline: number;
  private started = 0;
  private checked = 0;

  constructor(
    readonly repositories: Repositories,
    readonly accountId: string,
    readonly at: Date,
    readonly now: Date,
    readonly log: Logger,
    readonly graceMs: number,
    readonly limits: RunLimits,
  ) {
    this.run = {
      at: at.toISOString(),
      contractsBilled: 0,
      invoicesCreated: 0,
      invoiceIds: [],
      failures: [],
      hasMore: false,
    };
    this.deadline = now.getTime() + limits.timeBudgetMs;
  }

  /** Whether another cycle may be billed: always the first, then while every limit allows. */
  mayStartInvoice() {
    const { invoicesPerCall, cycleChecksPerCall } = this.limits;
    return (
      this.checked === 0 ||
      (this.started < invoicesPerCall && this.checked < cycleChecksPerCall && Date.now() < this.deadline)
    );
  }

  /**
   * Bills one cycle; a failure is reported, recorded for a later retry, and does not stop the contract's other cycles.
   */
  async bill(contract: Contract, cycle: InvoiceCycle, dueDays: DueDays, spendCredits = true): Promise<boolean> {
    this.checked += 1;
    try {
      const { alreadyInvoiced, created } = await billCycle(this.repositories, this.accountId, contract, cycle, {
        dueDays,
        spendCredits,
        log: this.log,
      });
      if (!alreadyInvoiced) this.started += 1;
      if (created) this.run.invoiceIds.push(created);
      return true;
    } catch (error) {
      this.started += 1;
      this.log.error(
        { err: error, accountId: this.accountId, contractId: contract.id, cycle: cycle.key },
        "could not bill a contract's cycle",
      );
      const message = publicMessage(error);
      this.run.failures.push({
        contractId: contract.id,
        billingCycle: { startTime: cycle.start.toISOString(), endTime: cycle.end.toISOString() },
        message,
      });
      await this.repositories.billingRuns.recordFailure({
        _id: `${contract.id}/${cycle.key}`,
        accountId: this.accountId,
        contractId: contract.id,
        cycleKey: cycle.key,
        cycleStart: cycle.start,
        message,
        retryAt: new Date(this.now.getTime() + FAILURE_RETRY_MS),
      });
      return false;
    }
  }

  /**
   * A debit whose invoice may never have been written: the invoice is made with that debit, also when the
   * contract was deleted since (the cycle was due when the credits were taken). A pending payment without
   * a debit took nothing; it is dropped once old enough not to belong to a run still in progress.
   */
  async completePayment(payment: PendingPaymentDoc) {
    const { repositories, accountId } = this;
    const contract = await repositories.contracts.getIncludingDeleted(accountId, payment.contractId);
    const cycle = contract && cycleOf(contract, payment.cycleKey, payment.cycleStart);
    const debited =
      contract && (await repositories.credits.paymentOf(accountId, contract.customerId, payment._id.toHexString()));
    if (!debited) {
      if (payment.createdAt.getTime() < this.now.getTime() - ABANDONED_AFTER_MS)
        await repositories.billingRuns.closePayment(payment._id);
    } else if (contract && cycle) {
      if (await this.bill(contract, cycle, await dueDaysOf(repositories, accountId, contract), false))
        await repositories.billingRuns.closePayment(payment._id);
    } else {
      // Kept, never dropped: credits were taken and no invoice can carry them yet. Ours to look into.
      this.log.error(
        { accountId, invoiceId: payment._id.toHexString(), contractId: payment.contractId },
        "a credit debit has no cycle to invoice",
      );
    }
  }

  /** A failed invoice, tried again; dropped when its contract is no longer billed. */
  async retry(failure: BillingFailureDoc) {
    const { repositories, accountId } = this;
    const contract = await repositories.contracts.get(accountId, failure.contractId);
    const cycle =
      contract && BILLABLE.has(contract.status) ? cycleOf(contract, failure.cycleKey, failure.cycleStart) : undefined;
    if (!contract || !cycle) return repositories.billingRuns.clearFailure(failure._id);
    if (await this.bill(contract, cycle, await dueDaysOf(repositories, accountId, contract)))
      await repositories.billingRuns.clearFailure(failure._id);
  }

  /**
   * What the call has to do for a scheduled contract: its invoices ready since the schedule's `nextDueAt`, in ready
   * order; none when it is not billed (its schedule moves to NEVER_DUE). An older schedule is first rewound to the
   * contract's start (see ScheduleDoc.checkedFromStart): its invoices are checked one by one and those missing made.
   */
  async planContract(schedule: ScheduleDoc): Promise<ContractPlan | undefined> {
    const { repositories, accountId, at } = this;
    const contractId = schedule._id;
    const contract = await repositories.contracts.getIncludingDeleted(accountId, contractId.toHexString());
    if (!contract) {
      if (schedule.createdAt.getTime() < this.now.getTime() - ABANDONED_AFTER_MS)
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
    this.run.contractsBilled += 1;
    const dueDays = await dueDaysOf(repositories, accountId, contract);
    const { due, nextDueAt } = billingTimeline(contract, at, this.graceMs);
    const cycles = due.filter((candidate) => candidate.readyAt >= scheduledAt);
    return { contract, dueDays, cycles, nextDueAt: nextDueAt ?? NEVER_DUE, attempted: 0 };
  }

  /**
   * Makes the invoices of the scheduled contracts (as many as one call looks at), all contracts together in ready
   * order (`byRunOrder`), so that credits pay a customer's invoices in the order they were issued however often runs
   * happen; invoices ready after the first contract not looked at wait for a later call. Then moves each schedule.
   */
  async billDue(due: ScheduleDoc[]) {
    const { limits } = this;
    const examined = due.slice(0, limits.invoicesPerCall);
    if (examined.length < due.length) this.run.hasMore = true;
    const plans: ContractPlan[] = [];
    for (const schedule of examined) {
      const plan = await this.planContract(schedule);
      if (plan) plans.push(plan);
    }
    // A contract not looked at is due from its schedule on: nothing ready later may be made before its invoices.
    const horizon = due[examined.length]?.nextDueAt;
    const queue = plans
      .flatMap((plan) =>
        plan.cycles
          .slice(0, limits.cycleChecksPerCall)
          .filter((cycle) => !horizon || cycle.readyAt <= horizon)
          .map((cycle) => ({ plan, contractId: plan.contract.id, cycle })),
      )
      .sort(byRunOrder);
    for (const { plan, cycle } of queue) {
      if (!this.mayStartInvoice()) break;
      await this.bill(plan.contract, cycle, plan.dueDays);
      plan.attempted += 1;
    }
    for (const plan of plans) {
      if (plan.attempted < plan.cycles.length) this.run.hasMore = true;
      await this.repositories.billingRuns.advance(new ObjectId(plan.contract.id), scheduleAfter(plan));
    }
  }
}

/** A contract's share of one call: its invoices to make, how many the call went through, and its next due moment. */
interface ContractPlan {
  contract: Contract;
  dueDays: DueDays;
  cycles: InvoiceCycle[];
  attempted: number;
  nextDueAt: Date;
}

/**
 * Where a contract's schedule goes after the call: the first invoice the call did not go through, never past it
 * (its cycles are in ready order, so every invoice not made is ready at or after it), else its next due moment.
 */
const scheduleAfter = (plan: ContractPlan) => plan.cycles[plan.attempted]?.readyAt ?? plan.nextDueAt;

/**
 * Makes the account's invoices due up to `at`, within the limits of one call (RUN_LIMITS): `hasMore` says
 * whether invoices (or expirations) may remain, so the caller calls again. Each call first completes debits left
 * without their invoice, retries failed invoices whose time has come, and writes the credit expirations that have
 * come by now, and rewinds schedules an earlier version left (ScheduleDoc.checkedFromStart); then it makes the
 * invoices of the contracts due (RunCall.billDue). Idempotent, and safe to run concurrently.
 */
export async function runBilling(
  repositories: Repositories,
  accountId: string,
  at: Date,
  log: Logger,
  { graceMs, now = new Date(), limits = RUN_LIMITS }: { graceMs: number; now?: Date; limits?: RunLimits },
): Promise<BillingRun> {
  assertNotInFuture(at, now);
  const call = new RunCall(repositories, accountId, at, now, log, graceMs, limits);
  for (const payment of await repositories.billingRuns.pendingPayments(accountId, limits.repairsPerCall))
    await call.completePayment(payment);
  for (const failure of await repositories.billingRuns.failuresToRetry(accountId, now, limits.repairsPerCall))
    await call.retry(failure);
  if (await expireDueCredits({ repositories, accountId, log }, now, limits.expirationsPerCall)) call.run.hasMore = true;
  const { billingRuns } = repositories;
  const endedUnchecked = await billingRuns.endedUnchecked(accountId, limits.repairsPerCall);
  for (const ended of endedUnchecked) await billingRuns.rewind(ended._id, BEFORE_EVERYTHING);
  if (endedUnchecked.length === limits.repairsPerCall) call.run.hasMore = true;
  await call.billDue(await billingRuns.due(accountId, at, limits.invoicesPerCall + 1));
  const { run } = call;
  run.invoicesCreated = run.invoiceIds.length;
  return run;
}
