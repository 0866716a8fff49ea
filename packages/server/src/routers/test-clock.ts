import {
  MAX_ADVANCE_DAYS,
  TEST_CLOCK_HEADER,
  testClockAdvanceRequest,
  testClockAdvanceResponse,
  testClockQuery,
  testClockResponse,
} from "@billing/shared";
import type { Context } from "../context.js";
import { accountProcedure } from "../procedures.js";
import { advanceTestClock, presentTestClock, readTestClock } from "../services/billing/test-clock/advance.js";
import type { DueWorkScope } from "../services/billing/test-clock/due-work.js";
import { router } from "../trpc.js";

const tags = ["test-clocks"];

/** The calling account's due work, billed with the server's settings. */
const scopeOf = (ctx: Context & { accountId: string }): DueWorkScope => ({
  repositories: ctx.repositories,
  accountId: ctx.accountId,
  log: ctx.trace.log,
  graceMs: ctx.billingGraceMs,
  draftMs: ctx.invoiceDraftMs,
});

export const testClockRouter = router({
  get: accountProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/test-clock",
        tags,
        summary: "The test account's clock: its billing time",
        description:
          "404 for a live account, whose billing time is real time. `advancingTo` is present while an advance has " +
          "more to do.",
      },
    })
    .input(testClockQuery)
    .output(testClockResponse)
    .query(async ({ ctx }) => ({ testClock: presentTestClock(await readTestClock(scopeOf(ctx))) })),

  advance: accountProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/test-clock/advance",
        tags,
        summary: "Move the test clock forward, doing everything that falls due on the way, in time order",
        description:
          "Does, at each moment something falls due between the clock's time and `to`, what real time would have " +
          "done then, in order: credit expirations, the scheduler's billing run (invoices, renewals, expiries and " +
          "terminations, draft finalization), the alerts sweep; each exactly once, webhooks stamped with the clock's " +
          "time. `to` must not be before the clock's time (400) nor more than " +
          `${MAX_ADVANCE_DAYS} days after it (400). One call does about 3 seconds of work and answers ` +
          "`hasMore: true` when more is due by `to`: call again with the same `to`. 409 while another advance of " +
          "the clock runs (it did nothing); 404 for a live account.",
      },
      finance: true,
    })
    .input(testClockAdvanceRequest)
    .output(testClockAdvanceResponse)
    .mutation(async ({ ctx, input }) => {
      const answer = await advanceTestClock(scopeOf(ctx), new Date(input.to));
      ctx.setHeader(TEST_CLOCK_HEADER, answer.testClock.at);
      return answer;
    }),
});
