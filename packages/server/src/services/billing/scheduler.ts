import { billingRunSubject } from "../../domain/audit.js";
import type { Logger } from "../../logger.js";
import type { ServiceMetrics } from "../../observability/metrics.js";
import type { Repositories } from "../../repositories/index.js";
import { sweepAlerts } from "../alerts/sweep.js";
import { compactListTotals } from "../list-totals.js";
import { maintainUsageRollups } from "../usage-rollups.js";
import { accountsWithWork, type WorkSource } from "./accounts-with-work.js";
import { RUN_LIMITS, type RunLimits, runBilling } from "./run.js";

export interface SchedulerSettings {
  /** BILLING_SCHEDULER_INTERVAL: the pause between the end of one tick and the start of the next. */
  intervalMs: number;
  /** BILLING_GRACE_PERIOD, as POST /billing-runs uses it. */
  graceMs: number;
  /** INVOICE_DRAFT_PERIOD, as POST /billing-runs uses it: a tick finalizes only the drafts whose period has passed. */
  draftMs: number;
}

/**
 * Accounts with billing work one tick calls the run for, once each: a tick's work is this many bounded calls
 * (RUN_LIMITS) at most.
 */
export const ACCOUNTS_PER_TICK = 100;

/**
 * A tick's calls wait for other calls' claims within their time budget only: a tick serves every account, and an
 * account left `hasMore` is called first by the next tick.
 */
const TICK_RUN_LIMITS: RunLimits = { ...RUN_LIMITS, holdersWaitMs: RUN_LIMITS.timeBudgetMs };

/**
 * Accounts, with work or not, whose alerts a tick sweeps and whose list totals it counts (the upkeep walk over every
 * account): about 9 reads each whatever they hold, so a tick's share of the walk is small.
 */
export const UPKEEP_ACCOUNTS_PER_TICK = 10;

export interface BillingScheduler {
  /** Starts no more calls, and resolves once the call in progress (if any) has finished. */
  close(): Promise<void>;
}

/** What one tick did, for its log line. */
export interface TickCounts {
  /** Accounts the run was called for. */
  accounts: number;
  invoicesCreated: number;
  /** Invoices that could not be made (the run retries them later by its own rules). */
  invoiceFailures: number;
  /** Calls that threw: the account is called again when the look for work finds it next. */
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

const noCounts = (): TickCounts => ({
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
});

/** A scheduled run that made invoices is in its account's audit log (actor `scheduler`); one that made none is not. */
function auditScheduledRun(repositories: Repositories, accountId: string, invoiceIds: string[], log: Logger) {
  const entry = { accountId, actor: { type: "scheduler" as const }, action: "billing.run", requestId: null };
  return repositories.auditLog.record({ ...entry, ...billingRunSubject(invoiceIds), idempotencyKey: null }, log);
}

/**
 * The accounts of the next tick: those left unfinished by the last one first (at most half the tick, so that the look
 * for work always moves on), then the next page of accounts with work. Pure, so that the order is tested directly.
 */
export function accountsOfTick(unfinished: string[], page: string[], size = ACCOUNTS_PER_TICK): string[] {
  const first = unfinished.slice(0, Math.floor(size / 2));
  return [...new Set([...first, ...page])].slice(0, size);
}

/** The ticks of one scheduler: where its look for work and its upkeep walk stand, and the accounts left unfinished. */
export interface BillingTicks {
  /** One tick; `stopping` is asked before each account's call (a closing scheduler starts no more). */
  tick(stopping?: () => boolean): Promise<TickCounts>;
}

/**
 * A tick finds the accounts with billing work by one read per work source across accounts (accounts-with-work.ts),
 * a page of them in id order after the last page, from the first again once every source's page came back short; it
 * calls the run for those left unfinished by the last tick first (accountsOfTick), then for that page, each call
 * reading only the sources the look found work in. An account with nothing due costs no command: the tick's commands
 * are its looks, its calls, and its share of the upkeep walk (UPKEEP_ACCOUNTS_PER_TICK accounts in id order, a page
 * per tick: their alerts swept, their list totals counted).
 */
export function billingTicks(
  repositories: Repositories,
  settings: Pick<SchedulerSettings, "graceMs" | "draftMs">,
  log: Logger,
  metrics: ServiceMetrics,
  { upkeepPerTick = UPKEEP_ACCOUNTS_PER_TICK } = {},
): BillingTicks {
  /** The last account the look for work covered; undefined: the next look starts at the first account. */
  let workedTo: string | undefined;
  /** The last account of the upkeep walk's previous page; undefined: the walk starts again at the first account. */
  let walkedTo: string | undefined;
  let unfinished: string[] = [];

  async function bill(accountId: string, workIn: ReadonlySet<WorkSource> | undefined, counts: TickCounts) {
    counts.accounts += 1;
    try {
      const { graceMs, draftMs } = settings;
      const run = await metrics.timed("billing_run", () =>
        runBilling(repositories, accountId, new Date(), log, { graceMs, draftMs, workIn, limits: TICK_RUN_LIMITS }),
      );
      counts.invoicesCreated += run.invoicesCreated;
      if (run.invoicesCreated > 0) await auditScheduledRun(repositories, accountId, run.invoiceIds, log);
      counts.invoiceFailures += run.failures.length;
      return run.hasMore;
    } catch (error) {
      counts.accountsFailed += 1;
      log.error({ err: error, accountId }, "scheduled billing run failed; the account is tried again next look");
      return false;
    }
  }

  async function upkeep(accountId: string, testAccount: boolean, counts: TickCounts) {
    if (!testAccount) await sweepAlerts(repositories, accountId, new Date(), log);
    try {
      counts.listTotalsCounted += await compactListTotals(repositories, accountId, new Date());
    } catch (error) {
      log.error({ err: error, accountId }, "list totals counting failed; totals stay exact, counted next walk");
    }
  }

  return {
    async tick(stopping = () => false) {
      const counts = noCounts();
      const pageSize = ACCOUNTS_PER_TICK - Math.min(unfinished.length, Math.floor(ACCOUNTS_PER_TICK / 2));
      const work = await accountsWithWork(repositories, workedTo, new Date(), pageSize);
      workedTo = work.coveredTo;
      const billed = accountsOfTick(unfinished, [...work.accounts.keys()]);
      const upkept = upkeepPerTick > 0 ? await repositories.accounts.idsAfter(walkedTo, upkeepPerTick) : [];
      walkedTo = upkept.length < upkeepPerTick ? undefined : upkept.at(-1);
      // A test account's billing time is its clock: what falls due is done by its advances, never on real time.
      const testAccounts = await repositories.accounts.withTestClock([...new Set([...billed, ...upkept])]);
      const stillUnfinished: string[] = [];
      for (const accountId of billed) {
        if (stopping()) break;
        if (testAccounts.has(accountId)) continue;
        // Unfinished and not in this look's page: its sources are not known, so its call reads them all.
        if (await bill(accountId, work.accounts.get(accountId), counts)) stillUnfinished.push(accountId);
      }
      unfinished = stillUnfinished;
      counts.unfinished = stillUnfinished.length;
      for (const accountId of upkept) {
        if (stopping()) break;
        await upkeep(accountId, testAccounts.has(accountId), counts);
      }
      if (!stopping()) {
        try {
          Object.assign(counts, await maintainUsageRollups(repositories, new Date()));
        } catch (error) {
          log.error(
            { err: error },
            "usage rollup repair or compaction failed; the partials stay counted and wait for the next tick",
          );
        }
      }
      return counts;
    },
  };
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
  const ticks = billingTicks(repositories, settings, log, metrics);

  async function tick() {
    const counts = await ticks.tick(() => stopping);
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
