import { z } from "zod";
import { DAY_MS, timestamp } from "./common.js";
import { serviceDate } from "./contract.js";

/**
 * The header every answer to a call of a test account carries (JSON, PDF and HTML alike): its clock's time, so that
 * no answer of a test account can be taken for a live one's.
 */
export const TEST_CLOCK_HEADER = "Billing-Test-Clock";

/** How far one advance may move a clock: two years, a leap day included. */
export const MAX_ADVANCE_DAYS = 731;
export const MAX_ADVANCE_MS = MAX_ADVANCE_DAYS * DAY_MS;

/** What makes an account a test account: its billing time starts at `at` and moves only when advanced. */
export const testClockCreate = z
  .strictObject({
    at: serviceDate.meta({ description: "The clock's first time: the account's billing time from its creation." }),
  })
  .meta({
    id: "TestClockCreate",
    description:
      "Makes the account a test account, whose billing time is its own clock (POST /test-clock/advance moves it); " +
      "for good: a test account never becomes a live one.",
  });
export type TestClockCreate = z.infer<typeof testClockCreate>;

export const testClock = z
  .object({
    at: timestamp.meta({
      description:
        "The account's billing time: everything due up to it is done. It stands still between advances, and moves " +
        "only forward.",
    }),
    advancingTo: timestamp.optional().meta({
      description: "Present while an advance has more to do (it answered `hasMore`): call it again with this `to`.",
    }),
  })
  .meta({ id: "TestClock" });
export type TestClock = z.infer<typeof testClock>;

/** `GET /test-clock` takes nothing: the clock is the calling account's. */
export const testClockQuery = z.object({});
export const testClockResponse = z.object({ testClock });
export type TestClockResponse = z.infer<typeof testClockResponse>;

export const testClockAdvanceRequest = z
  .strictObject({
    to: serviceDate.meta({
      description:
        `The time to move the clock to: not before its time (a clock never goes back), at most ${MAX_ADVANCE_DAYS} ` +
        "days after it. Its own time does what is due by then and not done yet.",
    }),
  })
  .meta({ id: "TestClockAdvanceRequest" });
export type TestClockAdvanceRequest = z.infer<typeof testClockAdvanceRequest>;

export const testClockAdvance = z
  .object({
    from: timestamp.meta({ description: "The clock's time when this call started." }),
    to: timestamp,
    reached: timestamp.meta({ description: "The clock's time now: `to` unless `hasMore`." }),
    moments: z.number().int().min(0).meta({
      description: "The moments at which this call did what fell due (in time order, each once).",
    }),
    invoicesCreated: z.number().int().min(0),
    hasMore: z.boolean().meta({
      description: "Work due by `to` is left: call again with the same `to` (the clock stays at `reached` meanwhile).",
    }),
  })
  .meta({ id: "TestClockAdvance" });
export type TestClockAdvance = z.infer<typeof testClockAdvance>;

export const testClockAdvanceResponse = z.object({ testClock, advance: testClockAdvance });
export type TestClockAdvanceResponse = z.infer<typeof testClockAdvanceResponse>;
