import { describe, expect, it } from "vitest";
import { invoiceRecognition, type RecognitionLine, recognizedBefore } from "../src/domain/reports/revenue.js";
import { expectError } from "./support/assertions.js";
import { billingAccount, everyMonths, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/**
 * Revenue recognition (issue 49): billed, recognized and deferred per period, from the revenue ledger. Every figure
 * below is computed by hand (docs/decisions.md, "Revenue recognition").
 */
const server = useTestServer();

const annual = (start: string): RecognitionLine => ({
  mode: "EVEN",
  start: new Date(start),
  end: new Date(Date.UTC(new Date(start).getUTCFullYear() + 1, new Date(start).getUTCMonth(), 15)),
  micros: 1_200_000_000,
});

describe("recognition of one line (pure)", () => {
  it("spreads 1,200.00 from Mar 15 over 365 days with cumulative rounding: 3.29 or 3.28 a day, 1,200.00 in all", () => {
    const line = annual("2026-03-15T00:00:00Z");
    const before = (at: string) => recognizedBefore(line, new Date(at), "USD");
    // After k days: round(120000 cents × k / 365). k = 1: 328.77 → 3.29; k = 2: 657.53 → 6.58 (3.29 that day);
    // k = 3: 986.30 → 9.86 (3.28 that day).
    expect(before("2026-03-16T00:00:00Z")).toBe(3_290_000);
    expect(before("2026-03-17T00:00:00Z")).toBe(6_580_000);
    expect(before("2026-03-18T00:00:00Z")).toBe(9_860_000);
    // Mar 15..31 is 17 days: 120000 × 17 / 365 = 5589.04 → 55.89.
    expect(before("2026-04-01T00:00:00Z")).toBe(55_890_000);
    // Before its start nothing, after its end all of it; the sum of every day's share is the amount exactly.
    expect(before("2026-03-15T00:00:00Z")).toBe(0);
    expect(before("2027-03-15T00:00:00Z")).toBe(1_200_000_000);
    let sum = 0;
    for (let day = 0; day < 365; day += 1) {
      const start = new Date(Date.parse("2026-03-15T00:00:00Z") + day * 86_400_000);
      const end = new Date(start.getTime() + 86_400_000);
      const share = recognizedBefore(line, end, "USD") - recognizedBefore(line, start, "USD");
      expect([3_280_000, 3_290_000]).toContain(share);
      sum += share;
    }
    expect(sum).toBe(1_200_000_000);
  });

  it("recognizes a ONE_TIME line on its cycle's first day; tax is never revenue", () => {
    const cycle = { start: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-04-01T00:00:00Z") };
    const [oneTime, flat] = invoiceRecognition(
      [
        { kind: "ONE_TIME", revenueBreakdown: { total: 55_000_000, tax: 5_000_000, taxInclusive: 0 } },
        { kind: "FLAT", revenueBreakdown: { total: 31_000_000, tax: 0, taxInclusive: 1_000_000 } },
      ],
      cycle,
      "USD",
    );
    // 55.00 with 5.00 tax added: 50.00 of revenue, all on Mar 1. 31.00 with 1.00 of tax inside: 30.00 over 31 days.
    expect(oneTime).toMatchObject({ mode: "ON_DAY", micros: 50_000_000 });
    expect(recognizedBefore(oneTime!, new Date("2026-03-01T23:00:00Z"), "USD")).toBe(50_000_000);
    expect(recognizedBefore(oneTime!, new Date("2026-03-01T00:00:00Z"), "USD")).toBe(0);
    expect(flat).toMatchObject({ mode: "EVEN", micros: 30_000_000 });
  });
});

describe("GET /reports/revenue", () => {
  it("reports a prepaid 1,200.00 a year from Mar 15 by month and by day; a voided invoice counts nothing", async () => {
    const account = await billingAccount(server);
    await account.contract({
      startDate: "2026-03-15T00:00:00Z",
      products: [
        {
          displayName: "Annual platform",
          scheduling: everyMonths(12, 15),
          pricing: { type: "FLAT", price: 1200 },
          paymentTerm: "Prepayment",
        },
      ],
    });
    // Another customer's monthly 31.00 from Mar 1, billed for March on Apr 1 and then voided: nothing, anywhere.
    const other = await account.newCustomer({ name: "Voided Co" });
    const monthlyContract = await account.contract({
      customerId: other,
      startDate: "2026-03-01T00:00:00Z",
      products: [{ displayName: "Support", scheduling: monthly(1), pricing: { type: "FLAT", price: 31 } }],
    });
    await account.run("2026-03-15T00:00:00Z");
    await account.run("2026-04-01T00:00:00Z");
    const [march] = await account.invoices(monthlyContract.id);
    expect(march.amount).toBe(31);
    const report = async (query: string) => {
      const response = await server.rest("GET", `/reports/revenue?${query}`, { token: account.token });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body;
    };
    const months = "from=2026-03-01T00:00:00Z&to=2026-06-01T00:00:00Z&interval=MONTH&currency=USD";
    // Before the void: March's 31.00 billed on Apr 1, recognized 1.00 a day in March (31 days), none deferred.
    const beforeVoid = await report(months);
    expect(beforeVoid.periods[0].recognized).toBe(55.89 + 31);
    expect(beforeVoid.periods[1].billed).toBe(31);

    await account.post(`/invoices/${march.id}/void`, {});
    const byMonth = await report(months);
    // March: billed 1,200.00 (issued Mar 15), recognized 17 days = 55.89, deferred 1,200.00 − 55.89 = 1,144.11.
    // April: 47 days by its end: 120000 × 47 / 365 = 15452.05 → 154.52; 154.52 − 55.89 = 98.63; deferred 1,045.48.
    // May: 78 days: 120000 × 78 / 365 = 25643.84 → 256.44; 256.44 − 154.52 = 101.92; deferred 943.56.
    expect(byMonth).toEqual({
      currency: "USD",
      interval: "MONTH",
      customerId: null,
      periods: [
        {
          start: "2026-03-01T00:00:00.000Z",
          end: "2026-04-01T00:00:00.000Z",
          billed: 1200,
          recognized: 55.89,
          deferred: 1144.11,
          unbilled: 0,
        },
        {
          start: "2026-04-01T00:00:00.000Z",
          end: "2026-05-01T00:00:00.000Z",
          billed: 0,
          recognized: 98.63,
          deferred: 1045.48,
          unbilled: 0,
        },
        {
          start: "2026-05-01T00:00:00.000Z",
          end: "2026-06-01T00:00:00.000Z",
          billed: 0,
          recognized: 101.92,
          deferred: 943.56,
          unbilled: 0,
        },
      ],
      // The open cycles now (the real now, after the window: nothing of theirs falls in it) of both contracts.
      unbilled: { asOf: expect.any(String), contracts: 2, truncated: false },
    });

    // Day by day from Mar 14: nothing on the 14th, then 3.29, 3.29, 3.28 (the roundings above).
    const days = await report("from=2026-03-14T00:00:00Z&to=2026-03-18T00:00:00Z&interval=DAY&currency=USD");
    expect(days.periods.map((period: { recognized: number }) => period.recognized)).toEqual([0, 3.29, 3.29, 3.28]);
    expect(days.periods.map((period: { deferred: number }) => period.deferred)).toEqual([0, 1196.71, 1193.42, 1190.14]);

    // Over the line's whole life, recognized sums to its amount exactly and nothing stays deferred.
    const life = await report("from=2026-03-01T00:00:00Z&to=2027-04-01T00:00:00Z&interval=MONTH&currency=USD");
    const cents = life.periods.reduce(
      (sum: number, period: { recognized: number }) => sum + Math.round(period.recognized * 100),
      0,
    );
    expect(cents).toBe(120_000);
    expect(life.periods.at(-1).deferred).toBe(0);
    // One customer's: the voided customer has nothing; tRPC answers as REST.
    const voided = await report(`${months}&customerId=${other}`);
    expect(
      voided.periods.map((period: { billed: number; recognized: number }) => [period.billed, period.recognized]),
    ).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    const trpc = await account.trpc().reports.revenue.query({
      from: "2026-03-01T00:00:00Z",
      to: "2026-06-01T00:00:00Z",
      interval: "MONTH",
      currency: "USD",
    });
    // (Its `unbilled.asOf` is the moment of its own call.)
    expect({ ...trpc, unbilled: { ...trpc.unbilled, asOf: 0 } }).toEqual({
      ...byMonth,
      unbilled: { ...byMonth.unbilled, asOf: 0 },
    });
  });

  it("reverses an OFFSET credit note on its day", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2026-01-01T00:00:00Z",
      products: [{ displayName: "Support", scheduling: monthly(1), pricing: { type: "FLAT", price: 31 } }],
    });
    await account.run("2026-02-01T00:00:00Z");
    const [january] = await account.invoices(contract.id);
    const note = { invoiceId: january.id, amount: 10, reason: "OTHER", refund: "OFFSET" };
    const created = (await account.post("/credit-notes", note, 201)).creditNote;
    const day = created.createdAt.slice(0, 10);
    const from = `${day}T00:00:00Z`;
    const to = new Date(Date.parse(from) + 86_400_000).toISOString();
    const response = await server.rest("GET", `/reports/revenue?from=${from}&to=${to}&interval=DAY&currency=USD`, {
      token: account.token,
    });
    // The note's day: −10.00 billed and recognized (no tax: all of it is revenue); January's 31.00 was recognized in
    // January, so nothing is deferred.
    // (Its `unbilled` is today's share of the open cycle: test/reports.unbilled.test.ts proves it on a clock.)
    expect(response.body.periods).toMatchObject([
      { start: new Date(from).toISOString(), end: to, billed: -10, recognized: -10, deferred: 0 },
    ]);
  });

  it("refuses a window ending before it starts or longer than its bound, with 400 naming the field", async () => {
    const account = await billingAccount(server);
    for (const query of [
      "from=2026-03-01T00:00:00Z&to=2026-02-01T00:00:00Z&currency=USD",
      "from=2026-01-01T00:00:00Z&to=2028-01-01T00:00:00Z&interval=DAY&currency=USD",
    ]) {
      const response = await server.rest("GET", `/reports/revenue?${query}`, { token: account.token });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues[0].path).toBe("to");
    }
  });
});
