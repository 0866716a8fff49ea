import type { testClockAdvanceRequest } from "@billing/shared";
import type { RequestOptions } from "../request-options.js";
import type { Transport } from "../transport.js";
import type { Input, TestClock, TestClockAdvanced } from "../types.js";

export type TestClockAdvanceParams = Input<typeof testClockAdvanceRequest>;

/** A test account's clock (the client's token must be a test account's: a live account's answers 404). */
export interface TestClockApi {
  /** The clock's time (`at`), and `advancingTo` while an advance has more to do. */
  get(options?: RequestOptions): Promise<TestClock>;
  /**
   * Moves the clock forward to `to`, doing in time order what falls due on the way (at most 731 days a call). One
   * call does about 3 seconds of work: call again with the same `to` while `advance.hasMore`.
   */
  advance(params: TestClockAdvanceParams, options?: RequestOptions): Promise<TestClockAdvanced>;
}

export function testClockResource({ trpc, call }: Transport): TestClockApi {
  return {
    get: (options) =>
      call("safe", (attempt) => trpc.testClock.get.query({}, attempt), options).then((r) => r.testClock),
    // Safe: an advance to a moment the clock has reached does nothing, and every step it runs is exactly once.
    advance: (params, options) => call("safe", (attempt) => trpc.testClock.advance.mutate(params, attempt), options),
  };
}
