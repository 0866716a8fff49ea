import { describe, expect, it } from "vitest";
import { recognizedBefore, usageDaysRecognition } from "../src/domain/reports/revenue.js";
import { billingAccount, day, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * Usage revenue recognized on the days its usage happened (issue 49; docs/decisions.md, "Revenue recognition"): a
 * usage line's amount split over its cycle's days in proportion to each day's units, exact to the minor unit. Every
 * figure below is computed by hand.
 */
const server = useTestServer();

const MARCH = { start: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-04-01T00:00:00Z") };
const UNIT = 1_000_000n;

/** Each UTC day's share of a line, over the days listed. */
const sharesOf = (line: ReturnType<typeof usageDaysRecognition>, days: string[]) =>
  days.map((date) => {
    const start = new Date(`${date}T00:00:00Z`);
    const end = new Date(start.getTime() + 86_400_000);
    return recognizedBefore(line, end, "USD") - recognizedBefore(line, start, "USD");
  });

describe("a usage line over the days of its usage (pure)", () => {
  it("splits 10.00 over days of 100, 200 and 700 units: 1.00, 2.00, 7.00, nothing on the days without usage", () => {
    const usage = [
      { date: "2026-03-03", valueMicros: 100n * UNIT },
      { date: "2026-03-10", valueMicros: 200n * UNIT },
      { date: "2026-03-20", valueMicros: 700n * UNIT },
    ];
    const line = usageDaysRecognition({ ...MARCH, micros: 10_000_000 }, usage, "USD");
    // 1,000 units: after Mar 3 round(1000 cents × 100 / 1000) = 100; after Mar 10 round(1000 × 300 / 1000) = 300;
    // after Mar 20 all 1000. Shares 1.00, 2.00, 7.00.
    expect(line.mode).toBe("USAGE_DAYS");
    expect(sharesOf(line, ["2026-03-02", "2026-03-03", "2026-03-10", "2026-03-11", "2026-03-20"])).toEqual([
      0, 1_000_000, 2_000_000, 0, 7_000_000,
    ]);
    expect(recognizedBefore(line, MARCH.start, "USD")).toBe(0);
    expect(recognizedBefore(line, MARCH.end, "USD")).toBe(10_000_000);
  });

  it("keeps the remainder exact: 10.00 over three days of 1 unit is 3.33, 3.34, 3.33", () => {
    const usage = ["2026-03-05", "2026-03-06", "2026-03-07"].map((date) => ({ date, valueMicros: UNIT }));
    const line = usageDaysRecognition({ ...MARCH, micros: 10_000_000 }, usage, "USD");
    // After 1 of 3 units round(1000 / 3 = 333.33) = 333; after 2 round(666.67) = 667; after 3 all 1000.
    expect(sharesOf(line, ["2026-03-05", "2026-03-06", "2026-03-07"])).toEqual([3_330_000, 3_340_000, 3_330_000]);
  });

  it("falls back to evenly over the cycle without usage to weigh by; a day outside the cycle weighs nothing", () => {
    const none = usageDaysRecognition({ ...MARCH, micros: 31_000_000 }, [], "USD");
    expect(none).toMatchObject({ mode: "EVEN", micros: 31_000_000 });
    const outside = usageDaysRecognition(
      { ...MARCH, micros: 31_000_000 },
      [
        { date: "2026-02-28", valueMicros: 5n * UNIT },
        { date: "2026-03-31", valueMicros: 1n * UNIT },
      ],
      "USD",
    );
    // Only Mar 31 is in March's cycle: all 31.00 on it.
    expect(sharesOf(outside, ["2026-03-30", "2026-03-31"])).toEqual([0, 31_000_000]);
  });
});

describe("GET /reports/revenue: usage on its days", () => {
  it("recognizes March's usage invoices on the days of the usage, graduated tiers by units", async () => {
    const account = await billingAccount(server, { aliases: ["usage-days-co"] });
    await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
    // Graduated: the first unit 5.00, every other 2.50; three units = 5.00 + 2 × 2.50 = 10.00.
    const pricing = {
      type: "GRADUATED",
      tiers: [
        { upTo: 1, unitPrice: 5 },
        { upTo: null, unitPrice: 2.5 },
      ],
    };
    const contract = await account.contract({
      startDate: day("2026-03-01"),
      products: [usageProduct("Tokens", "tokens", pricing)],
    });
    const event = (ref: string, timestamp: string) => ({
      ref,
      name: "tokens",
      timestamp,
      customerAlias: "usage-days-co",
      data: { n: "1" },
    });
    const events = [
      event("d-1", "2026-03-05T10:00:00Z"),
      event("d-2", "2026-03-06T10:00:00Z"),
      event("d-3", "2026-03-07T23:59:00Z"),
    ];
    const sent = await server.rest("POST", "/events", { token: account.token, body: { events } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await account.run("2026-04-02T00:00:00Z");
    const [march] = await account.invoices(contract.id);
    expect(march.amount).toBe(10);

    const report = async (query: string) => {
      const response = await server.rest("GET", `/reports/revenue?${query}`, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    // One unit a day on Mar 5, 6, 7: 10.00 × 1 / 3 each, the tiers aside (the first unit's 5.00 is not Mar 5's):
    // 3.33, 3.34, 3.33 by the cumulative rounding. Billed on its issue (Apr 1), so deferred 0 in March's days.
    const days = await report("from=2026-03-04T00:00:00Z&to=2026-03-09T00:00:00Z&interval=DAY&currency=USD");
    expect(days.periods.map((period: { recognized: number }) => period.recognized)).toEqual([0, 3.33, 3.34, 3.33, 0]);
    // By month: all 10.00 recognized in March, billed in April.
    const months = await report("from=2026-03-01T00:00:00Z&to=2026-05-01T00:00:00Z&interval=MONTH&currency=USD");
    expect(
      months.periods.map((period: { billed: number; recognized: number }) => [period.billed, period.recognized]),
    ).toEqual([
      [0, 10],
      [10, 0],
    ]);

    // Voided: its mirror takes every day back.
    await account.post(`/invoices/${march.id}/void`, {});
    const voided = await report("from=2026-03-04T00:00:00Z&to=2026-03-09T00:00:00Z&interval=DAY&currency=USD");
    expect(voided.periods.map((period: { recognized: number }) => period.recognized)).toEqual([0, 0, 0, 0, 0]);
  });
});
