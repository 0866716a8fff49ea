import { randomUUID } from "node:crypto";
import type { BillingRun, Invoice } from "@billing/shared";
import type { ContractInMicros } from "../../domain/billing/contract.js";
import type { PaymentTerms } from "../../domain/billing/invoice.js";
import type { CycleLookup, PlannedInvoice } from "../../domain/billing/items.js";
import { DomainError } from "../../domain/errors.js";
import type { Logger } from "../../logger.js";
import type { BillingClaimDoc } from "../../repositories/billing-claims.js";
import type { Repositories } from "../../repositories/index.js";
import { changedSinceRead } from "../contracts/billing-guard.js";
import { gatherPublications } from "../webhook-events.js";
import {
  announceCreated,
  finishInvoices,
  type InvoiceOutcome,
  type PricedInvoice,
  priceInvoice,
  type StoredNewInvoice,
  storeInvoices,
} from "./make-invoice.js";
import type { PassReads } from "./pass-reads.js";

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
  /**
   * Due contracts claimed at a time (issue 30): a call claims a batch, bills it, and claims the next while its
   * limits allow. A call's whole share at most: each batch costs its reads and writes once whatever its size (issue
   * 47: 20 at a time cost a month-end 1.45 commands an invoice, 100 cost 0.39), and batchSize cuts it to what the call
   * can bill in its time left at its pace, so that it never holds much more than it can bill and concurrent calls find
   * work beside it.
   */
  contractsPerClaim: 100,
  /**
   * Invoices stored before those stored are finalized together (their contracts checked in three reads, their lives
   * written in one command): a batch at most, which its claim already sized to the time the call has left.
   */
  invoicesPerFinish: 100,
  /** Pages of due schedules (`invoicesPerCall` + 1 each) read per batch to find contracts no other call holds. */
  duePagesPerCall: 4,
  /**
   * No batch is claimed after this much of the time budget (the first excepted): a batch claimed later could not be
   * billed in time, and a call that waited for another's claims would hold them through its next call for nothing.
   */
  claimingMs: 2_000,
  /**
   * A call whose only work left is other live calls' claims waits for their release until it is this old (its time
   * budget included), past the budget too: a wait reads one look at the claims at a time, where answering `hasMore`
   * costs its loop another call (about 15 commands) to find the same. With four loops over one month-end the last
   * batches outlast 3 s, and the loops without one spent 7 calls of 17 so (issue 47).
   */
  holdersWaitMs: 10_000,
};

export type RunLimits = typeof RUN_LIMITS;

/** The account's claims by contract, as `standingOfAccount` reads them (undefined: more than it reads). */
type AccountClaims = Map<string, BillingClaimDoc> | undefined;

/** A failed invoice is tried again by runs an hour later or more: a lasting cause is not hammered on. */
const FAILURE_RETRY_MS = 60 * 60_000;

/** A schedule or pending payment older than this without its contract or debit belongs to a run that stopped. */
export const ABANDONED_AFTER_MS = 10 * 60_000;

const INTERNAL_FAILURE_MESSAGE =
  "The invoice could not be made because of an internal error; the server log has the cause";

/** What a failure says to the caller: a DomainError's message as it is, never any other (it goes to the log). */
const publicMessage = (error: unknown) => (error instanceof DomainError ? error.message : INTERNAL_FAILURE_MESSAGE);

/**
 * One pass of a billing run (one call of `runBilling`): its answer so far, and how much more it may start within
 * its limits.
 */
export class BillingPass {
  readonly run: BillingRun;
  /** Who holds the contracts this pass claims (billing-claims.ts): this pass alone. */
  readonly holder = randomUUID();
  /** Whether the pass tried to claim a contract: then it releases its claims when it ends. */
  claiming = false;
  /**
   * The contracts this pass planned, each with the horizon (ms; undefined: none) its invoices were cut at: a later
   * batch plans a contract again only under another horizon (due-work.ts), and counts it once in contractsBilled.
   */
  readonly plannedUnder = new Map<string, number | undefined>();
  private readonly deadline: number;
  private readonly claimingDeadline: number;
  private readonly holdersDeadline: number;
  private started = 0;
  private checked = 0;
  /** The repositories as the pass reads them (pass-reads.ts). */
  readonly repositories: Repositories;
  /** The account's claims as the drafts' look read them, kept for the pass's first batch (accountClaims). */
  private claimsRead?: { claims: AccountClaims };

  constructor(
    readonly reads: PassReads,
    readonly accountId: string,
    readonly at: Date,
    readonly now: Date,
    readonly log: Logger,
    readonly graceMs: number,
    readonly draftMs: number,
    readonly limits: RunLimits,
  ) {
    this.repositories = reads.repositories;
    this.run = {
      at: at.toISOString(),
      contractsBilled: 0,
      invoicesCreated: 0,
      invoiceIds: [],
      failures: [],
      hasMore: false,
    };
    this.deadline = now.getTime() + limits.timeBudgetMs;
    this.claimingDeadline = now.getTime() + Math.min(limits.claimingMs, limits.timeBudgetMs);
    this.holdersDeadline = now.getTime() + Math.max(limits.holdersWaitMs, limits.timeBudgetMs);
  }

  /**
   * The account's claims (billing-claims.ts, standingOfAccount; undefined: too many), read now. `keep`: also kept for
   * the next call of this, which takes them without a read — the drafts' look reads them first, and a call's first
   * batch, next, needs them too (one read for both where each read its own) — unless `forgetClaims` came between.
   */
  async accountClaims({ keep = false } = {}): Promise<AccountClaims> {
    const kept = this.claimsRead;
    this.claimsRead = undefined;
    if (kept && !keep) return kept.claims;
    const claims = await this.repositories.billingClaims.standingOfAccount(this.accountId);
    if (keep) this.claimsRead = { claims };
    return claims;
  }

  /** Work done since the account's claims were kept (drafts settled): the next batch reads them afresh. */
  forgetClaims() {
    this.claimsRead = undefined;
  }

  /** Whether another batch of contracts may be claimed: while every limit allows, in the first `claimingMs`. */
  mayClaimMore(claimedSoFar: number) {
    const { invoicesPerCall, cycleChecksPerCall } = this.limits;
    return (
      claimedSoFar < invoicesPerCall &&
      this.started < invoicesPerCall &&
      this.checked < cycleChecksPerCall &&
      Date.now() < this.claimingDeadline
    );
  }

  /**
   * How long claims may still be made (`claiming`), until the time budget is spent (`budget`), or until the call
   * stops waiting for other calls' claims (`holders`), in ms (0 when past).
   */
  msLeft(until: "claiming" | "budget" | "holders") {
    const deadlines = { claiming: this.claimingDeadline, budget: this.deadline, holders: this.holdersDeadline };
    return Math.max(0, deadlines[until] - Date.now());
  }

  /**
   * Whether another invoice may be made: always the first, then while every limit allows. `contractsFirst`: the
   * invoice is the first of its contract in the call's first batch, which past the time budget is still made within
   * the counts — the call has read for the batch, and on an engine whose reads outlast the budget (FerretDB past a few
   * thousand stored invoices) a month-end would otherwise get one invoice a call.
   */
  mayStartInvoice(contractsFirst = false) {
    const { invoicesPerCall, cycleChecksPerCall } = this.limits;
    if (this.checked === 0) return true;
    const withinCounts = this.started < invoicesPerCall && this.checked < cycleChecksPerCall;
    return withinCounts && (contractsFirst || Date.now() < this.deadline);
  }

  /**
   * Makes one planned invoice (makeInvoice's steps); a failure is reported, recorded for a later retry, and does not
   * stop the contract's other invoices. True when it did not fail.
   */
  async bill(
    contract: ContractInMicros,
    planned: PlannedInvoice,
    paymentTerms: PaymentTerms,
    spendCredits = true,
  ): Promise<boolean> {
    const outcome = await this.price(contract, planned, paymentTerms, spendCredits);
    if (!outcome) return false;
    return outcome.priced ? this.finish([{ ...outcome.priced, planned }]) : true;
  }

  /**
   * Prices one planned invoice (priceInvoice: makeInvoice's steps 1–2): what is left to store and finish when it needs
   * an invoice; undefined when it failed (reported and recorded, as `bill` does). `cycles`: the contract's cycles as
   * the run planned them once (its late usage looks originals up there).
   */
  async price(
    contract: ContractInMicros,
    planned: PlannedInvoice,
    paymentTerms: PaymentTerms,
    spendCredits = true,
    cycles?: CycleLookup,
  ): Promise<(InvoiceOutcome & { priced?: PricedInvoice }) | undefined> {
    this.checked += 1;
    try {
      const outcome = await priceInvoice(this.repositories, this.accountId, contract, planned, {
        paymentTerms,
        spendCredits,
        log: this.log,
        at: this.at,
        draftMs: this.draftMs,
        cycles,
      });
      if (!outcome.alreadyInvoiced) this.started += 1;
      return outcome;
    } catch (error) {
      this.started += 1;
      await this.failed(contract, planned, error);
      return undefined;
    }
  }

  /**
   * Stores invoices this pass priced, together (storeInvoices: one insert), then finalizes and announces those it
   * stored, their contracts checked together (changedSinceRead: three reads for all of them) and those final now
   * finalized together (finishInvoices); each failure reported and recorded (a failure of the batch's, for each of
   * its invoices). True when none failed.
   */
  async finish(priced: (PricedInvoice & { planned: PlannedInvoice })[]): Promise<boolean> {
    if (priced.length === 0) return true;
    let outcomes: Awaited<ReturnType<typeof storeInvoices>>;
    try {
      outcomes = await storeInvoices(this.repositories, this.accountId, priced);
    } catch (error) {
      outcomes = priced.map(() => ({ error }));
    }
    const stored: (StoredNewInvoice & { planned: PlannedInvoice })[] = [];
    let allStored = true;
    for (const [index, outcome] of outcomes.entries()) {
      const { contract, planned } = priced[index] as PricedInvoice & { planned: PlannedInvoice };
      if ("error" in outcome) {
        allStored = false;
        await this.failed(contract, planned, outcome.error);
      } else if (outcome.toFinish) stored.push({ ...outcome.toFinish, planned });
    }
    return (await this.finishStored(stored)) && allStored;
  }

  /** Finalizes and announces invoices this pass stored (makeInvoice's step 4). True when none failed. */
  private async finishStored(stored: (StoredNewInvoice & { planned: PlannedInvoice })[]): Promise<boolean> {
    if (stored.length === 0) return true;
    // Their announcements are written together once every invoice of the batch has them (gatherPublications).
    const publications = gatherPublications(this.repositories, this.log);
    const call = { repositories: publications.repositories, accountId: this.accountId, log: this.log };
    let made: Map<string, Invoice>;
    try {
      const finalNow = stored.filter(({ finalNow }) => finalNow).map(({ contract }) => contract);
      made = await finishInvoices(call, stored, { at: this.at, changed: await changedSinceRead(call, finalNow) });
    } catch (error) {
      await publications.publish();
      for (const { contract, planned } of stored) await this.failed(contract, planned, error);
      return false;
    }
    let allFinished = true;
    for (const { contract, planned, invoice } of stored) {
      try {
        await announceCreated(call, made.get(invoice.id) ?? invoice);
        this.run.invoiceIds.push(invoice.id);
      } catch (error) {
        allFinished = false;
        await this.failed(contract, planned, error);
      }
    }
    await publications.publish();
    return allFinished;
  }

  /** A planned invoice that failed: reported in the run's answer, logged, and recorded for a retry an hour later. */
  private async failed(contract: ContractInMicros, planned: PlannedInvoice, error: unknown) {
    this.log.error(
      { err: error, accountId: this.accountId, contractId: contract.id, cycle: planned.key },
      "could not bill a contract's cycle",
    );
    const message = publicMessage(error);
    this.run.failures.push({
      contractId: contract.id,
      billingCycle: { startTime: planned.start.toISOString(), endTime: planned.end.toISOString() },
      message,
    });
    await this.repositories.billingRuns.recordFailure({
      _id: `${contract.id}/${planned.key}`,
      accountId: this.accountId,
      contractId: contract.id,
      cycleKey: planned.key,
      cycleStart: planned.start,
      message,
      retryAt: new Date(this.now.getTime() + FAILURE_RETRY_MS),
    });
  }

  /**
   * Re-prices or finalizes a draft (`work`); a failure is reported and logged, and the draft is tried again by the
   * next run, as every draft is.
   */
  async settle(draft: Invoice, work: () => Promise<unknown>): Promise<void> {
    this.checked += 1;
    this.started += 1;
    try {
      await work();
    } catch (error) {
      this.log.error(
        { err: error, accountId: this.accountId, contractId: draft.contractId, invoiceId: draft.id },
        "could not re-price or finalize a draft",
      );
      this.run.failures.push({
        contractId: draft.contractId,
        billingCycle: draft.billingCycle,
        message: publicMessage(error),
      });
    }
  }
}
