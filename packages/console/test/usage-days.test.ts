import { describe, expect, it } from "vitest";
import { dailyPoints, lastThirtyDays } from "../src/usage-days.js";

describe("the usage chart's days", () => {
  it("has one point per UTC day of the period, the end excluded, 0 where the API returned no day", () => {
    const points = dailyPoints("2024-02-27", "2024-03-02", [
      { date: "2024-02-28", value: 5 },
      { date: "2024-03-01", value: 1.5 },
    ]);
    // Feb 27, 28, 29 (2024 is a leap year) and Mar 1: 4 days.
    expect(points).toEqual([
      { date: "2024-02-27", value: 0 },
      { date: "2024-02-28", value: 5 },
      { date: "2024-02-29", value: 0 },
      { date: "2024-03-01", value: 1.5 },
    ]);
  });

  it("defaults to the 30 days up to and including today", () => {
    // Today is Mar 15 2024: Feb 15 .. Mar 15, i.e. 15 days of February (a leap year's 29) and 15 of March.
    expect(lastThirtyDays(Date.parse("2024-03-15T18:30:00Z"))).toEqual({
      startDate: "2024-02-15",
      endDate: "2024-03-16",
    });
  });
});
