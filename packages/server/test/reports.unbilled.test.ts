import { describe, expect, it } from "vitest";
import { type RecognitionLine, unbilledOf } from "../src/domain/reports/revenue.js";
import { billingAccount, day, monthly, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * Unbilled revenue (issue 49): the open cycles of live contracts, priced as of the account's now, recognized up to
 * now (docs/decisions.md, "Unbilled revenue"). Every figure below is computed by hand.
 */
const server = useTestServer();

const NOW = "2026-03-16T12:00:00Z";

describe("unbilled per period (pure)", () => {
  it("cuts every line at now: a period after now has none", () => {
    const flat: RecognitionLine = {
      mode: "EVEN",
      start: new Date("2026-03-01T00:00:00Z"),
      end: new Date("2026-04-01T00:00:00Z"),
      micros: 31_000_000,
    };
    const periods = [
      { start: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-04-01T00:00:00Z") },
      { start: new Date("2026-04-01T00:00:00Z"), end: new Date("2026-05-01T00:00:00Z") },
    ];
    // 31.00 over 31 days, 16 days begun by Mar 16 12:00: 16.00; April after now: 0.
    expect(unbilledOf([flat], periods, new Date(NOW), "USD")).toEqual([16_000_000, 0]);
  });
});

describe("GET /reports/revenue: unbilled", () => {
  it("prices a cycle half-way: flat by days begun, usage so far; other currencies, customers apart", async () => {
    const account = await billingAccount(server, { aliases: ["unbilled-co"] }, { testClock: { at: NOW } });
    await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
    await account.contract({
      startDate: day("2026-03-01"),
      products: [
        { displayName: "Support", scheduling: monthly(1), pricing: { type: "FLAT", price: 31 } },
        usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.1 }),
      ],
    });
    const other = await account.newCustomer({ name: "Euro Co" });
    await account.contract({
      customerId: other,
      currency: "EUR",
      startDate: day("2026-03-01"),
      products: [{ displayName: "Support", scheduling: monthly(1), pricing: { type: "FLAT", price: 100 } }],
    });
    const events = [
      {
        ref: "u-1",
        name: "tokens",
        timestamp: "2026-03-03T10:00:00Z",
        customerAlias: "unbilled-co",
        data: { n: "100" },
      },
      {
        ref: "u-2",
        name: "tokens",
        timestamp: "2026-03-10T10:00:00Z",
        customerAlias: "unbilled-co",
        data: { n: "50" },
      },
    ];
    const sent = await server.rest("POST", "/events", { token: account.token, body: { events } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const report = async (query: string) => {
      const response = await server.rest("GET", `/reports/revenue?${query}`, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };

    // March's cycle (Mar 1 – Apr 1) is open at Mar 16 12:00, not invoiced. FLAT 31.00: 16 of 31 days begun, 16.00.
    // Usage 150 tokens × 0.10 = 15.00 on the days it happened, all of it by now. March: 31.00; April: 0.
    const byMonth = await report("from=2026-03-01T00:00:00Z&to=2026-05-01T00:00:00Z&interval=MONTH&currency=USD");
    expect(byMonth.periods.map((period: { unbilled: number }) => period.unbilled)).toEqual([31, 0]);
    expect(byMonth.periods[0]).toMatchObject({ billed: 0, recognized: 0, deferred: 0 });
    // Both live contracts were priced (the EUR one counts nothing in USD).
    expect(byMonth.unbilled).toEqual({ asOf: "2026-03-16T12:00:00.000Z", contracts: 2, truncated: false });

    // Day by day: flat 1.00 a day. Usage on its days: 100 of the 150 tokens on Mar 3, 15.00 × 100 / 150 = 10.00;
    // the other 50 on Mar 10, 15.00 − 10.00 = 5.00. Mar 2: 1.00; Mar 3: 11.00; Mar 10: 6.00; Mar 15 and 16: 1.00
    // (no usage); Mar 17 is after now: nothing.
    const unbilledByDay = async (from: string, to: string) =>
      (await report(`from=${from}T00:00:00Z&to=${to}T00:00:00Z&interval=DAY&currency=USD`)).periods.map(
        (period: { unbilled: number }) => period.unbilled,
      );
    expect(await unbilledByDay("2026-03-02", "2026-03-04")).toEqual([1, 11]);
    expect(await unbilledByDay("2026-03-10", "2026-03-11")).toEqual([6]);
    expect(await unbilledByDay("2026-03-15", "2026-03-18")).toEqual([1, 1, 0]);

    // In EUR only the other contract: 100.00 × 16 / 31 = 51.6129 → 51.61. One customer's: only its contracts.
    const euro = await report("from=2026-03-01T00:00:00Z&to=2026-04-01T00:00:00Z&interval=MONTH&currency=EUR");
    expect(euro.periods[0].unbilled).toBe(51.61);
    const ofOther = await report(
      `from=2026-03-01T00:00:00Z&to=2026-04-01T00:00:00Z&interval=MONTH&currency=USD&customerId=${other}`,
    );
    expect(ofOther.periods[0].unbilled).toBe(0);
    expect(ofOther.unbilled.contracts).toBe(1);
  });
});
