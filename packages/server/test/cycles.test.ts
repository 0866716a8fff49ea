import { describe, expect, it } from "vitest";
import {
  billingDate,
  type CoveredDays,
  contractDays,
  coveredPart,
  cyclesOf,
  dayKey,
  defaultScheduling,
  startOfUtcDay,
} from "../src/domain/billing/cycles.js";

// Pure calendar rules of the billing engine (docs/decisions.md, "Billing engine" → Time zone, Cycles, Proration).
// Every expected date is read off a calendar: 2024 and 2000 are leap years, 2023 and 1900 are not.

const utc = (day: string) => new Date(`${day}T00:00:00.000Z`);
const covering = (from: string, to?: string): CoveredDays => ({
  from: utc(from),
  to: to === undefined ? undefined : utc(to),
});
const every = (months: number, billingDay: number) => ({
  duration: { unit: "MONTH" as const, value: months },
  billingDay,
});
/**
 * The boundaries of the first `count` cycles (fewer when the schedule ends): the first one's start, then each one's
 * end, checking that every cycle starts where the one before ended.
 */
const boundaries = (scheduling: ReturnType<typeof every>, covered: CoveredDays, count = 12) => {
  const days: string[] = [];
  for (const { start, end } of cyclesOf(scheduling, covered)) {
    if (days.length === 0) days.push(dayKey(start));
    expect(dayKey(start)).toBe(days.at(-1));
    days.push(dayKey(end));
    if (days.length > count) break;
  }
  return days;
};
const month = (year: number, monthOfYear: number) => year * 12 + monthOfYear - 1;

describe("contractDays: the UTC days a contract covers", () => {
  it("runs from the start's day up to, not including, the end's day, whatever the times of day", () => {
    const days = contractDays("2024-01-15T13:45:00Z", "2024-03-10T23:59:59.999Z");
    expect(days).toEqual(covering("2024-01-15", "2024-03-10"));
  });

  it("takes the UTC day of an instant written with an offset", () => {
    // 01:00 at +02:00 is 23:00 UTC the day before; 23:30 at -01:00 is 00:30 UTC the day after.
    const days = contractDays("2024-01-15T01:00:00+02:00", "2024-03-10T23:30:00-01:00");
    expect(days).toEqual(covering("2024-01-14", "2024-03-11"));
  });

  it("has no last day when the contract has no end", () => {
    expect(contractDays("2024-02-29T12:00:00Z", undefined)).toEqual({ from: utc("2024-02-29"), to: undefined });
  });

  it("startOfUtcDay and dayKey agree on the last millisecond of a day", () => {
    expect(startOfUtcDay(new Date("2024-02-29T23:59:59.999Z"))).toEqual(utc("2024-02-29"));
    expect(dayKey(new Date("2024-02-29T23:59:59.999Z"))).toBe("2024-02-29");
  });
});

describe("billingDate: the billing day of a month, clamped to its length", () => {
  it.each([
    [month(2024, 1), 31, "2024-01-31"],
    [month(2024, 2), 31, "2024-02-29"], // leap year
    [month(2023, 2), 31, "2023-02-28"],
    [month(2024, 2), 29, "2024-02-29"],
    [month(2023, 2), 29, "2023-02-28"],
    [month(2000, 2), 30, "2000-02-29"], // divisible by 400: leap
    [month(1900, 2), 29, "1900-02-28"], // divisible by 100 only: not leap
    [month(2024, 4), 31, "2024-04-30"],
    [month(2024, 12), 31, "2024-12-31"],
    [month(2024, 6), 1, "2024-06-01"],
  ])("month index %i, billing day %i → %s", (index, billingDay, day) => {
    expect(billingDate(index, billingDay)).toEqual(utc(day));
  });
});

describe("cyclesOf: the cycles of a schedule over the covered days", () => {
  it("billing day 31 from 2024-01-31 (leap year): Jan 31 → Feb 29 → Mar 31 → Apr 30 → May 31", () => {
    expect(boundaries(every(1, 31), covering("2024-01-31"), 4)).toEqual([
      "2024-01-31",
      "2024-02-29",
      "2024-03-31",
      "2024-04-30",
      "2024-05-31",
    ]);
  });

  it("billing day 31 from 2023-01-31: Jan 31 → Feb 28 → Mar 31", () => {
    expect(boundaries(every(1, 31), covering("2023-01-31"), 2)).toEqual(["2023-01-31", "2023-02-28", "2023-03-31"]);
  });

  it("billing day 30 and 29 fall back to Feb 29 in 2024 and Feb 28 in 2023", () => {
    expect(boundaries(every(1, 30), covering("2024-01-30"), 2)).toEqual(["2024-01-30", "2024-02-29", "2024-03-30"]);
    expect(boundaries(every(1, 29), covering("2023-01-29"), 2)).toEqual(["2023-01-29", "2023-02-28", "2023-03-29"]);
  });

  it("yearly from 2024-02-29 on billing day 29: Feb 28 in common years, Feb 29 again in 2028", () => {
    expect(boundaries(every(12, 29), covering("2024-02-29"), 4)).toEqual([
      "2024-02-29",
      "2025-02-28",
      "2026-02-28",
      "2027-02-28",
      "2028-02-29",
    ]);
  });

  it("starts with the cycle containing the first covered day, which may begin before it", () => {
    // Monthly on the 1st from Jan 15: the first cycle is all of January.
    expect(boundaries(every(1, 1), covering("2024-01-15"), 2)).toEqual(["2024-01-01", "2024-02-01", "2024-03-01"]);
    // Every 3 months on the 20th from May 10: May 20 is still ahead, so the first cycle began on Feb 20.
    expect(boundaries(every(3, 20), covering("2024-05-10"), 2)).toEqual(["2024-02-20", "2024-05-20", "2024-08-20"]);
    // Every 3 months on the 15th from May 20: May 15 has passed, so the first cycle began then.
    expect(boundaries(every(3, 15), covering("2024-05-20"), 2)).toEqual(["2024-05-15", "2024-08-15", "2024-11-15"]);
  });

  it("ends with the last cycle starting before the contract's end day", () => {
    // Ends Mar 10: the March cycle starts before it and is the last; April's would start after.
    const toMarch10 = covering("2024-01-15", "2024-03-10");
    expect(boundaries(every(1, 1), toMarch10)).toEqual(["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01"]);
    // Ends on a billing day: the cycle starting that day is not covered at all.
    const toMarch1 = covering("2024-01-01", "2024-03-01");
    expect(boundaries(every(1, 1), toMarch1)).toEqual(["2024-01-01", "2024-02-01", "2024-03-01"]);
  });

  it("has no cycle for a contract covering no day", () => {
    expect(boundaries(every(1, 1), contractDays("2024-01-15T08:00:00Z", "2024-01-15T20:00:00Z"))).toEqual([]);
  });

  it("stops at the service's horizon, 2100-01-01, on an open-ended contract", () => {
    expect(boundaries(every(1, 1), covering("2099-11-15"))).toEqual(["2099-11-01", "2099-12-01", "2100-01-01"]);
  });

  it("a product without a schedule of its own is billed monthly on the contract's start day", () => {
    expect(defaultScheduling(covering("2024-01-31"))).toEqual(every(1, 31));
  });
});

describe("coveredPart: the whole UTC days of a cycle the contract covers", () => {
  const cycle = (start: string, end: string) => ({ start: utc(start), end: utc(end) });
  /** [covered days, days of the cycle] of the cycle [start, end) for a contract covering [from, to). */
  const part = ([start, end]: [string, string], from: string, to?: string) => {
    const { days, periodDays } = coveredPart(cycle(start, end), covering(from, to));
    return [days, periodDays];
  };

  it("covers January from the 15th: 17 of 31 days (15th to 31st)", () => {
    expect(coveredPart(cycle("2024-01-01", "2024-02-01"), covering("2024-01-15"))).toEqual({
      from: utc("2024-01-15"),
      to: utc("2024-02-01"),
      days: 17,
      periodDays: 31,
    });
  });

  it("covers March up to the 10th: 9 of 31 days (1st to 9th)", () => {
    expect(part(["2024-03-01", "2024-04-01"], "2024-01-15", "2024-03-10")).toEqual([9, 31]);
  });

  it("counts February as 29 days in 2024 and 28 in 2023, and a clamped cycle by its own length", () => {
    expect(part(["2024-02-01", "2024-03-01"], "2024-01-01")).toEqual([29, 29]);
    expect(part(["2023-02-01", "2023-03-01"], "2023-01-01")).toEqual([28, 28]);
    // Jan 31 → Feb 29, 2024 is 29 days; covered from Feb 10, 19 of them (the 10th to the 28th).
    expect(part(["2024-01-31", "2024-02-29"], "2024-02-10")).toEqual([19, 29]);
  });

  it("is no day of a cycle outside the contract", () => {
    expect(part(["2024-04-01", "2024-05-01"], "2024-01-01", "2024-03-10")).toEqual([0, 30]);
  });
});
