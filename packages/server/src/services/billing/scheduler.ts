import { billingRunSubject } from "../../domain/audit.js";
import type { Logger } from "../../logger.js";
import type { ServiceMetrics } from "../../observability/metrics.js";
import type { Repositories } from "../../repositories/index.js";
import { sweepAlerts } from "../alerts/sweep.js";
import { compactListTotals } from "../list-totals.js";
import { maintainUsageRollups } from "../usage-rollups.js";
import { runBilling } from "./run.js";

export interface SchedulerSettings {
  /** BILLING_SCHEDULER_INTERVAL: the pause between the end of one tick and the start of the next. */
  intervalMs: number;
  /** BILLING_GRACE_PERIOD, as POST /billing-runs uses it. */
  graceMs: number;
  /** INVOICE_DRAFT_PERIOD, as POST /billing-runs uses it: a tick finalizes only the drafts whose period has passed. */
  draftMs: number;
}

/** Accounts one tick calls the run for, once each: a tick's work is this many bounded calls (RUN_LIMITS) at most. */
export const ACCOUNTS_PER_TICK = 100;

export interface BillingScheduler {
  /** Starts no more calls, and resolves once the call in progress (if any) has finished. */
  close(): Promise<void>;
}

/** What one tick did, for its log line. */
interface TickCounts {
  accounts: number;
  invoicesCreated: number;
  /** Invoices that could not be made (the run retries them later by its own rules). */
  invoiceFailures: number;
  /** Calls that threw: the account is called again when the walk reaches it next. */
  accountsFailed: number;
  /** Accounts whose call said hasMore: called first in the next tick. */
  unfinished: number;
  /** Usage rollup keys whose partials were merged (ROLLUP_PARTIALS_PER_TICK partials looked at, at most). */
  rollupsCompacted: number;
  /** Event batches left open by a call cut short whose missing partials were written (OPEN_BATCHES_PER_TICK). */
  batchesRepaired: number;
  /** Events stored before rollups existed (an upgrade) rolled up by this tick (EVENTS_PER_MIGRATION_STEP at most). */
  eventsMigrated: number;
  /** Usage rollup keys summarized again for a new meter's dimension keys (WIDENING_EVENTS_PER_TICK events read). */
  rollupsWidened: number;
  /** List-total streams (customers, contracts, deletions, invoices) counted further (LIST_COUNT_STEP each, at most). */
  listTotalsCounted: number;
}

/** A scheduled run that made invoices is in its account's audit log (actor `scheduler`); one that made none is not. */
function auditScheduledRun(repositories: Repositories, accountId: string, invoiceIds: string[], log: Logger) {
  const entry = { accountId, actor: { type: "scheduler" as const }, action: "billing.run", requestId: null };
  return repositories.auditLog.record({ ...entry, ...billingRunSubject(invoiceIds), idempotencyKey: null }, log);
}

/**
 * The accounts of the next tick: those left unfinished by the last one first (at most half the tick, so that the walk
 * over every account always moves on), then the next page of the walk. Pure, so that the order is tested directly.
 */
export function accountsOfTick(unfinished: string[], page: string[], size = ACCOUNTS_PER_TICK): string[] {
  const first = unfinished.slice(0, Math.floor(size / 2));
  return [...new Set([...first, ...page])].slice(0, size);
}

/**
 * The billing scheduler of one server instance: every `intervalMs`, it does for the accounts of one tick what
 * POST /billing-runs does at now, one call each. Several instances may run it on one database: the run's claims split
 * the due contracts between them and its exactly-once rules decide every invoice, so nothing else is coordinated here
 * and nothing needs resuming after a crash.
 */
export function startBillingScheduler(
  repositories: Repositories,
  settings: SchedulerSettings,
  log: Logger,
  metrics: ServiceMetrics,
): BillingScheduler {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  /** The last account of the walk's previous page; undefined: the walk starts again at the first account. */
  let walkedTo: string | undefined;
  let unfinished: string[] = [];

  async function tick() {
    const pageSize = ACCOUNTS_PER_TICK - Math.min(unfinished.length, Math.floor(ACCOUNTS_PER_TICK / 2));
    const page = await repositories.accounts.idsAfter(walkedTo, pageSize);
    walkedTo = page.length < pageSize ? undefined : page.at(-1);
    const counts: TickCounts = {
      accounts: 0,
      invoicesCreated: 0,
      invoiceFailures: 0,
      accountsFailed: 0,
      unfinished: 0,
      rollupsCompacted: 0,
      batchesRepaired: 0,
      eventsMigrated: 0,
      rollupsWidened: 0,
      listTotalsCounted: 0,
    };
    const stillUnfinished: string[] = [];
    for (const accountId of accountsOfTick(unfinished, page)) {
      if (stopping) break;
      counts.accounts += 1;
      try {
        // A test account's billing time is its clock: what falls due is done by its advances, never on real time.
        const { testClock } = await repositories.accounts.callFactsOf(accountId);
        if (!testClock) {
          const run = await metrics.timed("billing_run", () =>
            runBilling(repositories, accountId, new Date(), log, {
              graceMs: settings.graceMs,
              draftMs: settings.draftMs,
            }),
          );
          counts.invoicesCreated += run.invoicesCreated;
          if (run.invoicesCreated > 0) await auditScheduledRun(repositories, accountId, run.invoiceIds, log);
          counts.invoiceFailures += run.failures.length;
          if (run.hasMore) stillUnfinished.push(accountId);
          await sweepAlerts(repositories, accountId, new Date(), log);
        }
      } catch (error) {
        counts.accountsFailed += 1;
        log.error({ err: error, accountId }, "scheduled billing run failed; the account is tried again next walk");
      }
      try {
        counts.listTotalsCounted += await compactListTotals(repositories, accountId, new Date());
      } catch (error) {
        log.error({ err: error, accountId }, "list totals counting failed; totals stay exact, counted next walk");
      }
    }
    unfinished = stillUnfinished;
    counts.unfinished = stillUnfinished.length;
    if (!stopping) {
      try {
        Object.assign(counts, await maintainUsageRollups(repositories, new Date()));
      } catch (error) {
        log.error(
          { err: error },
          "usage rollup repair or compaction failed; the partials stay counted and wait for the next tick",
        );
      }
    }
    metrics.schedulerTicks.inc();
    metrics.schedulerLastTick.set(Date.now() / 1000);
    const work = counts.invoicesCreated + counts.invoiceFailures + counts.accountsFailed + counts.unfinished;
    const rollupWork =
      counts.rollupsCompacted +
      counts.batchesRepaired +
      counts.eventsMigrated +
      counts.rollupsWidened +
      counts.listTotalsCounted;
    if (work + rollupWork > 0) log.info(counts, "billing scheduler tick");
  }

  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      ticking = metrics
        .timed("billing_scheduler_tick", tick)
        .catch((error) => log.error({ err: error }, "billing scheduler tick failed"))
        .finally(() => {
          ticking = undefined;
          if (!stopping) schedule(settings.intervalMs);
        });
    }, delayMs);
  };
  schedule(0);

  return {
    async close() {
      stopping = true;
      clearTimeout(timer);
      await ticking;
    },
  };
}
