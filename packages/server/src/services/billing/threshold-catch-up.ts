import type { Logger } from "../../logger.js";
import type { Repositories } from "../../repositories/index.js";
import { sweepThresholds } from "./thresholds.js";

/** Accounts that bill thresholds whose contracts one upkeep tick sweeps (each up to THRESHOLD_SWEEP_CONTRACTS). */
export const THRESHOLD_ACCOUNTS_PER_TICK = 5;

/** One step of the threshold catch-up: what the upkeep worker calls every tick (app.ts hands it over). */
export type ThresholdCatchUp = (at: Date) => Promise<string[]>;

/**
 * The catch-up of threshold billing in the background, whether or not the billing scheduler runs (docs/decisions.md,
 * "Threshold catch-up on every instance"): each step takes the next `THRESHOLD_ACCOUNTS_PER_TICK` accounts whose flag
 * says they bill thresholds (index `thresholdBilling_1__id_1`) and sweeps each live one's contracts at `at`
 * (sweepThresholds: a bounded page of them, the same derived insert deciding every threshold invoice, so two
 * instances bill it once). A test account's catch-up is its clock's advances', never real time. The walk starts again
 * at the first account when it reaches the last. The ids of the threshold invoices made.
 */
export function thresholdCatchUp(repositories: Repositories, log: Logger): ThresholdCatchUp {
  let walkedTo: string | undefined;
  return async (at) => {
    const page = await repositories.accounts.thresholdBillingAfter(walkedTo, THRESHOLD_ACCOUNTS_PER_TICK);
    walkedTo = page.length < THRESHOLD_ACCOUNTS_PER_TICK ? undefined : page.at(-1)?.id;
    const made: string[] = [];
    for (const { id: accountId, testClock } of page)
      if (!testClock) made.push(...(await sweepThresholds({ repositories, accountId, log }, at)));
    return made;
  };
}
