import { onAccountClock } from "../billing-clock.js";
import type { Logger } from "../logger.js";
import type { Repositories } from "../repositories/index.js";
import { issueDueForAccount } from "./credit-recurrences.js";
import { type Repeating, repeatEvery } from "./repeat-every.js";

/** The pause between two passes of the background issuer (RECURRING_CREDITS_INTERVAL's default). */
export const CREDIT_ISSUER_INTERVAL_MS = 30_000;
/** Recurring grants one pass looks at: the accounts they belong to are each issued for. */
const DUE_PER_PASS = 200;

export type CreditIssuer = Pick<Repeating, "close">;

/**
 * One pass: the accounts holding recurring grants due by now, each issued for on its clock (a test account is
 * skipped: its clock's advance issues its periods). Returns the periods' accounts worked on.
 */
export async function issueRecurringCredits(repositories: Repositories, log: Logger, now: Date): Promise<number> {
  const accounts = new Set((await repositories.creditRecurrences.due(now, DUE_PER_PASS)).map((doc) => doc.accountId));
  for (const accountId of accounts) {
    if (await repositories.accounts.testClockOf(accountId)) continue;
    await onAccountClock(accountId, undefined, () => issueDueForAccount({ repositories, accountId, log }, now));
  }
  return accounts.size;
}

/**
 * Issues the recurring grants' periods in the background, every `intervalMs`, whether or not the billing scheduler
 * runs (as the webhook worker): a customer whose ledger nothing reads still gets each period's grant, and its
 * `credit.granted` webhook, when the period starts. Several instances may run it at once: each period's entries are
 * written once (their ids), so they can at worst repeat a read.
 */
export function startCreditIssuer(repositories: Repositories, log: Logger, intervalMs: number): CreditIssuer {
  return repeatEvery(
    intervalMs,
    () => issueRecurringCredits(repositories, log, new Date()),
    (error) => log.error({ err: error }, "issuing recurring credits failed; the next pass tries again"),
  );
}
