import type { Logger } from "../../../logger.js";
import type { Repositories } from "../../../repositories/index.js";
import { sweepAlerts } from "../../alerts/sweep.js";
import { runCollections } from "../../collection/dunning.js";
import { expireDueCredits } from "../../credit-ledger.js";
import { issueDueForAccount } from "../../credit-recurrences.js";
import { RUN_LIMITS } from "../pass.js";
import { runBilling } from "../run.js";
import { sweepThresholds } from "../thresholds.js";

/** Whose due work it is: the account, its data and log, and the billing settings the scheduler bills with. */
export interface DueWorkScope {
  repositories: Repositories;
  accountId: string;
  log: Logger;
  /** BILLING_GRACE_PERIOD and INVOICE_DRAFT_PERIOD, as POST /billing-runs and the scheduler use them. */
  graceMs: number;
  draftMs: number;
}

/** What one run of a step did by its moment: whether work due by then is left (its limits cut it), invoices made. */
export interface StepOutcome {
  hasMore: boolean;
  invoiceIds?: string[];
}

/**
 * A kind of work that falls due with time, as real time would have done it: `nextDue`, the earliest moment after
 * `after` (any, when undefined) at which it has work not done yet (undefined: none of its own; it still runs at each
 * moment an advance stops at); `run`, the work due by `at`, done on the clock at `at`, within one call's limits.
 */
export interface DueWorkStep {
  name: string;
  nextDue(scope: DueWorkScope, after: Date | undefined): Promise<Date | undefined>;
  run(scope: DueWorkScope, at: Date): Promise<StepOutcome>;
}

/**
 * What falls due with time, in the order it is done at each moment a test clock's advance stops at: the order a
 * billing scheduler's tick does it in real time (recurring credits' new periods and credit expirations before the
 * invoices they would have paid, then the billing run, then the alerts sweep). A new kind of due work is one more
 * entry, at its place in this order: dunning steps and scheduled exports join here when they are
 * built (docs/decisions.md, "Test clocks").
 */
export const DUE_WORK: readonly DueWorkStep[] = [
  {
    // A recurring grant's period starts: its grant (and rollover) issued, the previous period's expiring first.
    name: "recurring credits",
    nextDue: ({ repositories, accountId }, after) => repositories.creditRecurrences.nextDue(accountId, after),
    run: async (scope, at) => ({ hasMore: await issueDueForAccount(scope, at) }),
  },
  {
    name: "credit expirations",
    nextDue: ({ repositories, accountId }, after) => repositories.creditExpiries.nextExpiry(accountId, after),
    run: async (scope, at) => ({ hasMore: await expireDueCredits(scope, at, RUN_LIMITS.expirationsPerCall) }),
  },
  {
    // The scheduler's billing run: due invoices (arrears after the grace period, prepaid at the cycle's start), the
    // renewals, expiries and scheduled terminations it records before billing a contract, draft finalization.
    name: "billing",
    async nextDue({ repositories, accountId }, after) {
      const moments = await Promise.all([
        repositories.billingRuns.nextDue(accountId, after),
        repositories.invoices.nextFinalization(accountId, after),
      ]);
      return earliest(moments);
    },
    async run({ repositories, accountId, log, graceMs, draftMs }, at) {
      const run = await runBilling(repositories, accountId, at, log, { graceMs, draftMs });
      return { hasMore: run.hasMore, invoiceIds: run.invoiceIds };
    },
  },
  {
    // Collection (services/collection/): the charge at finalization of what the billing run just finalized, then
    // the dunning steps (retries, reminders, the final action) at their days from each invoice's due date.
    name: "collection",
    nextDue: ({ repositories, accountId }, after) => repositories.invoiceCollections.nextAfter(accountId, after),
    run: async (scope, at) => ({ hasMore: await runCollections(scope, at) }),
  },
  {
    // Usage changes only by ingestion, at the clock's time, which evaluates the alerts then: the sweep, as the
    // scheduler's, catches up on an evaluation a stopped instance lost. No moment of its own.
    name: "alerts",
    nextDue: async () => undefined,
    async run({ repositories, accountId, log }, at) {
      await sweepAlerts(repositories, accountId, at, log);
      return { hasMore: false };
    },
  },
  {
    // Threshold billing's catch-up, as the scheduler's walk does it, for an account whose flag says it has
    // thresholds (one read of the account otherwise): an evaluation lost after ingestion is billed at the next moment.
    name: "thresholds",
    nextDue: async () => undefined,
    async run(scope, at) {
      const { thresholdBilling } = await scope.repositories.accounts.callFactsOf(scope.accountId);
      if (thresholdBilling) await sweepThresholds(scope, at);
      return { hasMore: false };
    },
  },
];

/** The earliest of some moments (undefined: none). */
export function earliest(moments: readonly (Date | undefined)[]): Date | undefined {
  return moments.reduce<Date | undefined>(
    (first, moment) => (moment && (!first || moment.getTime() < first.getTime()) ? moment : first),
    undefined,
  );
}
