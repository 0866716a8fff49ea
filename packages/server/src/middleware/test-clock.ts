import { TEST_CLOCK_HEADER } from "@billing/shared";
import { onAccountClock } from "../billing-clock.js";
import { accountMiddleware } from "./authenticate.js";

/**
 * The call runs on its account's clock (billing-clock.ts): a test account's clock's time, read once per call, or
 * real time for a live account. A test account's answer says so in its `Billing-Test-Clock` header. The same read
 * says whether the account bills thresholds (ingestion skips their evaluation when it does not: no extra command),
 * and carries the account to the call's work (a billing run reads its settings from it: accountOfCall).
 */
export const onCallersClock = accountMiddleware(async ({ ctx, next }) => {
  const { testClock, thresholdBilling, account } = await ctx.repositories.accounts.callFactsOf(ctx.accountId);
  if (testClock) ctx.setHeader(TEST_CLOCK_HEADER, testClock.at.toISOString());
  return onAccountClock(ctx.accountId, testClock?.at, () => next(), { thresholdBilling, account });
});
