import { describe, expect, it } from "vitest";
import { nextStepAt, stepMoment, stepsDue } from "../src/domain/collection/dunning.js";
import { isRevoked } from "../src/domain/collection/portal-token.js";

/** The dunning policy's steps (domain/collection/dunning.ts), by hand: the policy, due Apr 30, 2027. */
const policy = { retryDays: [1, 3, 7], reminderDays: [-3, 0, 7, 14], finalAction: "MARK_UNCOLLECTIBLE" as const };
const due = new Date("2027-04-30T00:00:00.000Z");
const at = (day: string) => new Date(`${day}T12:00:00.000Z`);

describe("dunning steps", () => {
  it("counts each step in days from the due date, negative before it", () => {
    expect(stepMoment(due, -3).toISOString()).toBe("2027-04-27T00:00:00.000Z");
    expect(stepMoment(due, 14).toISOString()).toBe("2027-05-14T00:00:00.000Z");
  });

  it("takes each step once, in order: reminder Apr 27, reminder Apr 30, retry May 1", () => {
    expect(stepsDue(policy, due, at("2027-04-26"), {}, true)).toEqual([]);
    expect(stepsDue(policy, due, at("2027-04-27"), {}, true)).toEqual([{ kind: "REMINDER", day: -3 }]);
    // Apr 27's reminder taken: nothing more that day.
    expect(stepsDue(policy, due, at("2027-04-27"), { REMINDER: -3 }, true)).toEqual([]);
    expect(stepsDue(policy, due, at("2027-04-30"), { REMINDER: -3 }, true)).toEqual([{ kind: "REMINDER", day: 0 }]);
    expect(stepsDue(policy, due, at("2027-05-01"), { REMINDER: 0 }, true)).toEqual([{ kind: "RETRY", day: 1 }]);
  });

  it("a late start (or a finalization after the due date) takes only the latest past step of each kind, once", () => {
    // First look May 9: reminders −3, 0, 7 and retries 1, 3, 7 are all past → reminder 7 and retry 7 only.
    expect(stepsDue(policy, due, at("2027-05-09"), {}, true)).toEqual([
      { kind: "REMINDER", day: 7 },
      { kind: "RETRY", day: 7 },
    ]);
    // Not chargeable (no payment method): the reminder alone.
    expect(stepsDue(policy, due, at("2027-05-09"), {}, false)).toEqual([{ kind: "REMINDER", day: 7 }]);
  });

  it("the final action follows the last step (day 14), once", () => {
    const taken = { REMINDER: 14, RETRY: 7 };
    expect(stepsDue(policy, due, new Date("2027-05-14T00:00:00.000Z"), taken, true)).toEqual([]);
    expect(stepsDue(policy, due, new Date("2027-05-14T00:00:00.001Z"), taken, true)).toEqual([
      { kind: "FINAL", day: 14 },
    ]);
    expect(stepsDue(policy, due, at("2027-06-01"), { ...taken, FINAL: 14 }, true)).toEqual([]);
  });

  it("schedules the next look at the next step's moment, the final action just after the last", () => {
    expect(nextStepAt(policy, due, at("2027-04-27"), true)?.toISOString()).toBe("2027-04-30T00:00:00.000Z");
    expect(nextStepAt(policy, due, at("2027-05-01"), true)?.toISOString()).toBe("2027-05-03T00:00:00.000Z");
    // Not chargeable: retries are not looked for; May 7's reminder is next.
    expect(nextStepAt(policy, due, at("2027-05-01"), false)?.toISOString()).toBe("2027-05-07T00:00:00.000Z");
    expect(nextStepAt(policy, due, at("2027-05-13"), true)?.toISOString()).toBe("2027-05-14T00:00:00.000Z");
    expect(nextStepAt(policy, due, stepMoment(due, 14), true)?.toISOString()).toBe("2027-05-14T00:00:00.001Z");
    expect(nextStepAt(policy, due, new Date("2027-05-14T00:00:00.001Z"), true)).toBeUndefined();
  });
});

describe("portal link revocation", () => {
  const grant = { accountId: "a", customerId: "c", expiresAt: 2_000_000_000 };
  it("refuses links made at or before the revocation, not those made after it", () => {
    // Made 12:00:00.000, revoked 12:05:00.000 → refused; made 12:05:00.001 → works.
    const revokedAt = Date.parse("2027-04-30T12:05:00.000Z");
    expect(isRevoked({ ...grant, issuedAt: Date.parse("2027-04-30T12:00:00.000Z") }, revokedAt)).toBe(true);
    expect(isRevoked({ ...grant, issuedAt: revokedAt }, revokedAt)).toBe(true);
    expect(isRevoked({ ...grant, issuedAt: revokedAt + 1 }, revokedAt)).toBe(false);
    expect(isRevoked({ ...grant, issuedAt: revokedAt }, undefined)).toBe(false);
    // A link made before links carried issuedAt: refused by any revocation.
    expect(isRevoked(grant, revokedAt)).toBe(true);
  });
});
