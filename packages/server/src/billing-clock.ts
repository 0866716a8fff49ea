import { AsyncLocalStorage } from "node:async_hooks";
import type { Account } from "@billing/shared";

/**
 * Whose work is running and on which clock: set for each authenticated call (middleware/test-clock.ts), for each
 * moment of a test clock's advance, and for background work done for one account (alert evaluation). `testClockAt`
 * is the test account's clock; undefined for a live account, whose billing time is real time.
 */
interface ClockContext {
  accountId: string;
  testClockAt: Date | undefined;
  /** Whether the account bills thresholds, as the call's read of its account said; undefined when not read. */
  thresholdBilling?: boolean | undefined;
  /** The account as the call read it at its start (middleware/test-clock.ts); undefined when not read. */
  account?: Account | undefined;
}

const running = new AsyncLocalStorage<ClockContext>();

/** Runs `work` (and everything it starts) on the account's clock: its test clock's time, or real time when absent. */
export const onAccountClock = <T>(
  accountId: string,
  testClockAt: Date | undefined,
  work: () => T,
  facts?: { thresholdBilling: boolean; account?: Account | undefined },
): T =>
  running.run({ accountId, testClockAt, thresholdBilling: facts?.thresholdBilling, account: facts?.account }, work);

/**
 * The account as the running call read it at its start, for its work to use instead of reading it again (a billing
 * run's pass: one read fewer a call); undefined outside the account's call.
 */
export const accountOfCall = (accountId: string): Account | undefined => {
  const context = running.getStore();
  return context?.accountId === accountId ? context.account : undefined;
};

/**
 * Whether work for the account may have thresholds to bill: false only when the call's read of the account said it
 * has no contract with `billingThresholds` (background work, which did not read it, answers true).
 */
export function mayBillThresholds(accountId: string): boolean {
  const context = running.getStore();
  return context?.accountId !== accountId || context.thresholdBilling !== false;
}

/** Whether the work running is the account's (then its clock is known without reading the account). */
export const runsOnClockOf = (accountId: string) => running.getStore()?.accountId === accountId;

/** The test clock's time of the work running for `accountId`; undefined for a live account (or outside its work). */
export function testClockOf(accountId: string): Date | undefined {
  const context = running.getStore();
  return context?.accountId === accountId && context.testClockAt ? new Date(context.testClockAt) : undefined;
}

/**
 * "Now" as billing means it, for the account: the one function every billing meaning of now reads (what is due,
 * overdue, expired, in the current cycle; which checks a moment must pass). A test account's is its clock's time,
 * standing still between advances; a live account's is `realNow` (the moment the caller took, else this instant).
 * Record times (createdAt, paidAt, leases, rate limits…) are infrastructure and never read it: docs/decisions.md,
 * "Test clocks".
 */
export const billingNow = (accountId: string, realNow = new Date()): Date => testClockOf(accountId) ?? realNow;
