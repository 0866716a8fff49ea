import { onAccountClock } from "../../billing-clock.js";
import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { idleBackoff } from "../idle-backoff.js";
import { type Repeating, repeatEvery } from "../repeat-every.js";
import { runMigrationBatch } from "./migrations.js";

/** How often the worker looks for running migrations (PLAN_MIGRATION_INTERVAL in production: the default). */
export const MIGRATION_INTERVAL_MS = 1_000;
/** Migrations a tick works on, one batch each: bounded work per tick, oldest first. */
const MIGRATIONS_PER_TICK = 10;

/** `runNow` takes every running migration a batch further (what the timer does). */
export type MigrationWorker = Repeating;

/**
 * Carries plan migrations on in the background, whether or not the billing scheduler runs (the data's other chores are
 * the upkeep worker's, services/upkeep/worker.ts): every
 * `intervalMs`, one batch of each running migration (oldest first, MIGRATIONS_PER_TICK at most), on its account's
 * clock. Every instance runs one; two instances on one batch move each contract once (see migrateOne), so a
 * migration a crash stopped is resumed by the next tick of any instance. With none running, the look sits out ticks
 * (services/idle-backoff.ts): a migration started while it sits out is taken within 8 s.
 */
export function startMigrationWorker(repositories: Repositories, log: Logger, intervalMs: number): MigrationWorker {
  const backoff = idleBackoff();
  return repeatEvery(
    intervalMs,
    async (closing, scheduled) => {
      if (!backoff.due(scheduled)) return;
      const running = await repositories.planMigrations.running(MIGRATIONS_PER_TICK);
      backoff.looked(running.length > 0);
      for (const migration of running) {
        if (closing()) return;
        const { accountId } = migration;
        const clock = (await repositories.accounts.get(accountId))?.testClock?.at;
        const scope = { repositories, accountId, log };
        try {
          await onAccountClock(accountId, clock ? new Date(clock) : undefined, () =>
            runMigrationBatch(scope, migration),
          );
        } catch (error) {
          log.error({ err: error, migrationId: migration.id }, "migration batch failed; the next tick tries again");
        }
      }
    },
    (error) => log.error({ err: error }, "reading running migrations failed; the next tick tries again"),
  );
}
