import { describe, expect, it } from "vitest";
import { billingNow, onAccountClock, testClockOf } from "../src/billing-clock.js";
import { advanceRefusal, afterClock, dayAfterClock, dueBy, leaseStep, nextMoment } from "../src/domain/test-clock.js";

/** The test clocks' rules as pure functions (issue 42; docs/decisions.md, "Test clocks"). */
const at = (iso: string) => new Date(iso);

describe("advanceRefusal", () => {
  it("refuses going back and more than 731 days; allows the clock's own time", () => {
    const clock = at("2027-01-01T00:00:00Z");
    expect(advanceRefusal(clock, at("2026-12-31T23:59:59.999Z"))).toMatch(/never goes back/);
    expect(advanceRefusal(clock, clock)).toBeUndefined();
    // 365 days of 2027 and 366 of 2028: Jan 1, 2029 is 731 days on.
    expect(advanceRefusal(clock, at("2029-01-01T00:00:00Z"))).toBeUndefined();
    expect(advanceRefusal(clock, at("2029-01-01T00:00:00.001Z"))).toMatch(/at most 731 days/);
  });
});

describe("nextMoment and dueBy", () => {
  const jan1 = at("2027-01-01T00:00:00Z");
  const apr2 = at("2027-04-02T00:00:00Z");
  it("stops at the earliest moment due after the clock and by `to`, or nowhere", () => {
    const due = [at("2027-03-15T00:00:00Z"), undefined, at("2027-02-01T00:00:00Z")];
    expect(nextMoment(due, jan1, apr2)).toEqual(at("2027-02-01T00:00:00Z"));
    // Due at the clock's time is not after it; due after `to` waits for a later advance.
    expect(nextMoment([jan1, at("2027-05-01T00:00:00Z")], jan1, apr2)).toBeUndefined();
    expect(nextMoment([apr2], jan1, apr2)).toEqual(apr2);
  });

  it("knows work left undone by the clock's time", () => {
    expect(dueBy([undefined, jan1], jan1)).toBe(true);
    expect(dueBy([at("2027-01-01T00:00:00.001Z")], jan1)).toBe(false);
  });
});

describe("usage against the clock", () => {
  it("refuses timestamps after the clock's time and days that have not begun", () => {
    const clock = at("2027-01-10T12:00:00Z");
    expect(
      afterClock(["2027-01-10T12:00:00Z", "2027-01-10T12:00:00.001Z", "2027-01-10T13:00:00+02:00"], clock),
    ).toEqual([1]);
    expect(dayAfterClock({ year: 2027, month: 1, day: 10 }, clock)).toBe(false);
    expect(dayAfterClock({ year: 2027, month: 1, day: 11 }, clock)).toBe(true);
  });
});

describe("leaseStep", () => {
  const noon = at("2027-01-01T12:00:00Z");
  it("takes the next generation after a released or expired lease; a live one is held", () => {
    expect(leaseStep(undefined, noon)).toBe(1);
    expect(leaseStep({ generation: 3, expiresAt: at("2027-01-01T12:01:00Z"), releasedAt: noon }, noon)).toBe(4);
    expect(leaseStep({ generation: 3, expiresAt: noon }, noon)).toBe(4);
    expect(leaseStep({ generation: 3, expiresAt: at("2027-01-01T12:00:00.001Z") }, noon)).toBe("held");
  });
});

describe("billingNow", () => {
  it("is the clock of the account whose work runs, and real time for any other", async () => {
    const clock = at("2027-01-01T00:00:00Z");
    const real = at("2026-06-01T00:00:00Z");
    await onAccountClock("a", clock, async () => {
      await Promise.resolve();
      expect(billingNow("a", real)).toEqual(clock);
      expect(testClockOf("a")).toEqual(clock);
      expect(billingNow("b", real)).toEqual(real);
      // A live account's work: real time, the moment the caller took.
      await onAccountClock("a", undefined, () => expect(billingNow("a", real)).toEqual(real));
    });
    expect(billingNow("a", real)).toEqual(real);
  });
});
