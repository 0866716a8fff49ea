import { randomUUID } from "node:crypto";
import type { TestClock, TestClockAdvance } from "@billing/shared";
import { onAccountClock } from "../../../billing-clock.js";
import { badRequest, conflict, DomainError } from "../../../domain/errors.js";
import { advanceRefusal, dueBy, leaseStep, nextMoment } from "../../../domain/test-clock.js";
import type { StoredTestClock } from "../../../repositories/accounts.js";
import { DUE_WORK, type DueWorkScope, type DueWorkStep } from "./due-work.js";

/**
 * What one advance call may do, so that it answers in seconds whatever the distance: it starts no moment after its
 * time budget (a moment's billing run has its own limits, RUN_LIMITS) and answers `hasMore`; the caller calls again.
 */
export const ADVANCE_LIMITS = {
  timeBudgetMs: 3_000,
  /** How long an advance holds its clock: far longer than a call's work, so only a dead call's lease runs out. */
  leaseMs: 60_000,
};
export type AdvanceLimits = typeof ADVANCE_LIMITS;

const NO_TEST_CLOCK =
  "This account has no test clock: its billing time is real time. A test account is made with `testClock` " +
  "(POST /admin/accounts, or PATCH before its first invoice)";

const HELD =
  "The test clock is being advanced by another call: nothing was done; call again once that advance has answered";

/** A test account's clock as the API shows it. */
export const presentTestClock = ({ at, advancingTo }: StoredTestClock): TestClock => ({
  at: at.toISOString(),
  ...(advancingTo && { advancingTo: advancingTo.toISOString() }),
});

/** The account's test clock; 404 for a live account. */
export async function readTestClock({ repositories, accountId }: Pick<DueWorkScope, "repositories" | "accountId">) {
  const clock = await repositories.accounts.testClockOf(accountId);
  if (!clock) throw new DomainError("NOT_FOUND", NO_TEST_CLOCK);
  return clock;
}

/** Each step's next moment after `after` (any, when undefined), in DUE_WORK's order. */
const nextDueOf = (scope: DueWorkScope, after: Date | undefined, steps: readonly DueWorkStep[]) =>
  Promise.all(steps.map((step) => step.nextDue(scope, after)));

/**
 * Takes the clock's lease (domain leaseStep: one advance holds a clock at a time, decided by a unique insert); 409
 * when another advance holds it. Returns what releases it.
 */
async function leaseClock({ repositories, accountId }: DueWorkScope, limits: AdvanceLimits) {
  const { testClockLeases } = repositories;
  const now = new Date();
  const generation = leaseStep((await testClockLeases.latest(accountId)) ?? undefined, now);
  if (generation === "held") throw conflict(HELD);
  const lease = {
    _id: `${accountId}/${generation}`,
    accountId,
    generation,
    holder: randomUUID(),
    expiresAt: new Date(now.getTime() + limits.leaseMs),
  };
  if (!(await testClockLeases.take(lease))) throw conflict(HELD);
  return () => testClockLeases.release(lease._id, new Date());
}

/**
 * Moves a test account's clock forward to `to` and does, in time order, everything that falls due on the way, as real
 * time would have: at each moment some step's work falls due (DUE_WORK's `nextDue`), every step runs on the clock at
 * that moment, in DUE_WORK's order; first, at the clock's own time, what it left undone. A stretch where nothing
 * falls due is passed in one move. Each moment done moves the
 * clock there, so the clock never passes undone work; past the time budget the call answers `hasMore` with the clock
 * at the last moment done (`advancingTo`: `to`), and the next call goes on from there. One advance at a time per
 * clock (409 for the other); everything it does is exactly once by its own rules (invoices, ledger entries, recorded
 * contract changes, crossings), so an advance cut short and called again does nothing twice.
 */
export async function advanceTestClock(
  scope: DueWorkScope,
  to: Date,
  { limits = ADVANCE_LIMITS, steps = DUE_WORK }: { limits?: AdvanceLimits; steps?: readonly DueWorkStep[] } = {},
): Promise<{ testClock: TestClock; advance: TestClockAdvance }> {
  const { repositories, accountId } = scope;
  const refuse = (clock: StoredTestClock) => {
    const refusal = advanceRefusal(clock.at, to);
    if (refusal) throw badRequest(`to ${refusal}`, [{ path: "to", message: refusal }]);
  };
  refuse(await readTestClock(scope));
  const release = await leaseClock(scope, limits);
  try {
    // Read again under the lease: an advance that held it before may have moved the clock since.
    const from = await readTestClock(scope);
    refuse(from);
    const started = Date.now();
    const withinBudget = () => Date.now() - started < limits.timeBudgetMs;
    const invoiceIds: string[] = [];
    let at = from.at;
    let moments = 0;
    let hasMore = false;
    // Work due by the clock's own time and not done (a contract made with a past start): done there first.
    let moment = dueBy(await nextDueOf(scope, undefined, steps), at) ? at : undefined;
    for (;;) {
      if (!moment) {
        if (at.getTime() >= to.getTime()) break;
        // Every call does a moment at least: a continuation always moves on.
        if (moments > 0 && !withinBudget()) {
          hasMore = true;
          break;
        }
        moment = nextMoment(await nextDueOf(scope, at, steps), at, to);
        if (!moment) {
          // Nothing falls due before `to`: the clock moves there, as real time would pass.
          at = to;
          await repositories.accounts.moveTestClock(accountId, at);
          break;
        }
      }
      const done = await runMoment(scope, moment, steps, withinBudget, invoiceIds);
      moments += 1;
      if (!done) {
        hasMore = true;
        break;
      }
      at = moment;
      moment = undefined;
      await repositories.accounts.moveTestClock(accountId, at, at < to ? to : undefined);
    }
    if (hasMore) await repositories.accounts.moveTestClock(accountId, at, to);
    const reached: StoredTestClock = { at, ...(hasMore && { advancingTo: to }) };
    return {
      testClock: presentTestClock(reached),
      advance: {
        from: from.at.toISOString(),
        to: to.toISOString(),
        reached: at.toISOString(),
        moments,
        invoicesCreated: invoiceIds.length,
        hasMore,
      },
    };
  } finally {
    await release();
  }
}

/**
 * Does every step's work due by `moment`, on the clock at `moment`, in order; a step whose limits cut it short is run
 * again while the budget lasts. False when work due by `moment` is left: the clock must not reach it yet.
 */
async function runMoment(
  scope: DueWorkScope,
  moment: Date,
  steps: readonly DueWorkStep[],
  withinBudget: () => boolean,
  invoiceIds: string[],
): Promise<boolean> {
  for (const step of steps) {
    for (;;) {
      const outcome = await onAccountClock(scope.accountId, moment, () => step.run(scope, moment));
      invoiceIds.push(...(outcome.invoiceIds ?? []));
      if (!outcome.hasMore) break;
      if (!withinBudget()) return false;
    }
  }
  return true;
}
