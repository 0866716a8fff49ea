import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { stepBackfills } from "../backfills.js";
import { applyPendingVoids } from "../event-voids.js";
import { idleBackoff, workedOn } from "../idle-backoff.js";
import { stepReportLedgerBackfill } from "../invoices/report-ledger-backfill.js";
import { type Repeating, repeatEvery } from "../repeat-every.js";

/** How often the upkeep worker takes its bounded steps (the default; tests drive it with `runNow`). */
export const UPKEEP_INTERVAL_MS = 1_000;

/** `runNow` takes one bounded step of each kind of upkeep now (what the timer does). */
export type UpkeepWorker = Repeating;

/**
 * The data's upkeep in the background, whether or not the billing scheduler runs: every `intervalMs`, a bounded step
 * of each chore that keeps stored data consistent, each failing alone (the next tick tries it again):
 * - the event voids recorded but not applied to the rollups yet (services/event-voids.ts `applyPendingVoids`, 20 a
 *   tick: a crash, or a batch still open when the void was recorded);
 * - the backfills not done yet (services/backfills.ts `stepBackfills`): one step (a page of voids or of events) of
 *   each of two a tick;
 * - the database's own migrations of customer names and of reservation refs into claims, and of document numbers'
 *   attempts, a page of each per tick until done (docs/decisions.md, issue 48);
 * - the report ledgers' backfill (services/invoices/report-ledger-backfill.ts): a page of 100 invoices per tick until
 *   every invoice stored before the ledgers has its entries (docs/decisions.md, issue 49);
 * - the reports' monthly closings (`closeMonths`: services/reports/closing.ts `reportCloser`), a few accounts per
 *   tick: each ended month's figures kept once, so that reports read O(periods) documents (docs/decisions.md);
 * - the catch-up of threshold billing (`thresholds`: services/billing/threshold-catch-up.ts, which app.ts hands over,
 *   since only billing/ imports billing/), a few accounts per tick: what ingestion's evaluation lost.
 * Every instance runs one; each step is decided by unique inserts, so two instances on one chore do it once. A chore
 * that finds nothing sits out a growing number of ticks (services/idle-backoff.ts: a look every 8 s at most while
 * idle); `runNow` takes every chore.
 */
export function startUpkeepWorker(
  repositories: Repositories,
  log: Logger,
  intervalMs: number,
  thresholds: (at: Date) => Promise<unknown>,
  closeMonths: (at: Date) => Promise<unknown>,
): UpkeepWorker {
  const chores: Chore[] = [
    chore("applying event voids failed", () => applyPendingVoids(repositories, log)),
    chore("a backfill's step failed", () => stepBackfills(repositories, log)),
    chore("claiming stored customer names failed", () => repositories.customers.claimStoredNames()),
    chore("claiming stored customer aliases failed", () => repositories.customers.claimStoredAliases()),
    chore("claiming stored reservation refs failed", () => repositories.reservations.claimStoredRefs()),
    chore("noting stored reservations' openings failed", () => repositories.reservations.noteStoredOpenings()),
    chore("noting stored invoices' contracts failed", () => repositories.invoices.noteStoredContracts()),
    chore("noting stored grants' customers failed", () => repositories.credits.noteStoredGrantCustomers()),
    chore("giving stored document numbers their attempts failed", () =>
      repositories.documentNumbers.claimStoredNumbers(),
    ),
    chore("a step of the report ledgers' backfill failed", () => stepReportLedgerBackfill(repositories)),
    chore("closing the reports' months failed", () => closeMonths(new Date())),
    chore("the threshold catch-up failed", () => thresholds(new Date())),
  ];
  return repeatEvery(
    intervalMs,
    async (closing, scheduled) => {
      for (const { failure, step, backoff } of chores) {
        if (closing()) return;
        if (!backoff.due(scheduled)) continue;
        try {
          backoff.looked(workedOn(await step()));
        } catch (error) {
          backoff.looked(true);
          log.error({ err: error }, `${failure}; the next tick tries again`);
        }
      }
    },
    (error) => log.error({ err: error }, "the upkeep step failed; the next tick tries again"),
  );
}

/** One chore of the upkeep: its bounded step (what it did: a count or a list), and its own idle backoff. */
interface Chore {
  failure: string;
  step: () => Promise<unknown>;
  backoff: ReturnType<typeof idleBackoff>;
}

const chore = (failure: string, step: () => Promise<unknown>): Chore => ({ failure, step, backoff: idleBackoff() });
