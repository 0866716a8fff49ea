import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { type Repeating, repeatEvery } from "../repeat-every.js";
import { runCollections } from "./dunning.js";

/** How often the collection worker looks for due charges, retries and reminders, by default. */
export const DEFAULT_COLLECTION_INTERVAL_MS = 60_000;

/** Accounts one look serves at most; the next look goes on. */
const ACCOUNTS_PER_LOOK = 100;

export type CollectionWorker = Repeating;

/**
 * The collection worker of one instance, started whether or not the billing scheduler runs (as the webhook worker):
 * every `intervalMs`, each live account with collection work due does it at now. Several instances may run it: each
 * charge and step is decided by a unique insert, so two instances looking at one invoice do each thing once. Test
 * accounts are left to their clock's advances.
 */
export function startCollectionWorker(repositories: Repositories, intervalMs: number, log: Logger): CollectionWorker {
  return repeatEvery(
    intervalMs,
    async (closing) => {
      const now = new Date();
      for (const accountId of await repositories.invoiceCollections.accountsDueBy(now, ACCOUNTS_PER_LOOK)) {
        if (closing()) return;
        if (await repositories.accounts.testClockOf(accountId)) continue;
        await runCollections({ repositories, accountId, log }, now);
      }
    },
    (error) => log.error({ err: error }, "collection run failed; the next one tries again"),
  );
}
