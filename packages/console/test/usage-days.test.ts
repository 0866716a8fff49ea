import { describe, expect, it } from "vitest";
import { dailyPoints, defaultUsageView, lastThirtyDays } from "../src/usage-days.js";

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

describe("the usage chart's first view of a customer", () => {
  const NOW = Date.parse("2026-11-28T12:00:00Z");
  const product = (catalogProductId?: string) => ({ catalogProductId });

  it("shows the first meter the customer's contracts price, not the account's first meter", () => {
    const contracts = [{ startDate: "2026-01-01T00:00:00Z", products: [product(), product("storage")] }];
    expect(defaultUsageView(contracts, ["calls", "storage"], NOW).meterKey).toBe("storage");
    expect(defaultUsageView([], ["calls", "storage"], NOW).meterKey).toBe("calls");
    expect(defaultUsageView([], [], NOW).meterKey).toBeUndefined();
  });

  it("shows the last 30 days while a contract runs, else the last 30 days of the one that ended last", () => {
    const running = { startDate: "2026-01-01T00:00:00Z", endDate: null, products: [] };
    expect(defaultUsageView([running], ["calls"], NOW).period).toEqual(lastThirtyDays(NOW));
    const january = { startDate: "2024-01-01T00:00:00Z", endDate: "2024-02-01T00:00:00Z", products: [] };
    const march = { startDate: "2024-03-10T00:00:00Z", endDate: "2024-03-20T12:00:00Z", products: [] };
    // March ended last, on the 20th at noon: its days from the 10th up to the 21st (excluded), 11 days.
    expect(defaultUsageView([january, march], ["calls"], NOW).period).toEqual({
      startDate: "2024-03-10",
      endDate: "2024-03-21",
    });
    // January alone: its last 30 days end on Feb 1 (excluded).
    expect(defaultUsageView([january], ["calls"], NOW).period).toEqual({
      startDate: "2024-01-02",
      endDate: "2024-02-01",
    });
  });
});
