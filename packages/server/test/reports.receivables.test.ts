import { describe, expect, it } from "vitest";
import { agingBucketOf, daysPastDue } from "../src/domain/reports/receivables.js";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";

/**
 * The receivables aging (issue 49): what finalized, unvoided invoices leave owed as of a moment, less payments at
 * their date and OFFSET credit notes, by whole UTC days past due. Every figure below is computed by hand.
 */
const faults = testHooks();
const server = useTestServer({ hooks: faults.hooks });

const zero = { current: 0, "1-30": 0, "31-60": 0, "61-90": 0, "90+": 0, total: 0 };

describe("aging buckets", () => {
  it("count whole UTC days past the due date: 0 is current, 1..30, 31..60, 61..90, then 90+", () => {
    const due = new Date("2026-04-06T00:00:00Z");
    // Apr 6 → Jul 10: 24 days of April + 31 of May + 30 of June + 10 of July = 95.
    expect(daysPastDue(due, new Date("2026-07-10T00:00:00Z"))).toBe(95);
    // Later the same day is still 0 days past due; the next day 1.
    expect(daysPastDue(due, new Date("2026-04-06T23:59:59Z"))).toBe(0);
    expect(daysPastDue(due, new Date("2026-04-07T00:00:00Z"))).toBe(1);
    const buckets = [-3, 0, 1, 30, 31, 60, 61, 90, 91, 400].map(agingBucketOf);
    expect(buckets).toEqual(["current", "current", "1-30", "1-30", "31-60", "31-60", "61-90", "61-90", "90+", "90+"]);
  });
});

describe("GET /reports/receivables", () => {
  it("ages invoices 5, 35 and 95 days overdue, less a payment, a credit note and a void, then and now", async () => {
    // Customer A is due at issue (0 days' terms); a monthly 100.00 from Mar 1, 2026.
    const account = await billingAccount(server, { name: "A", netTermsDays: 0 });
    const a = account.customerId;
    const contractA = await account.contract({ startDate: "2026-03-01T00:00:00Z", products: [committed(1, 100)] });
    // Customer B: 30 days' terms, a monthly 50.00 from Jun 1, 2026.
    const b = await account.newCustomer({ name: "B", netTermsDays: 30 });
    const contractB = await account.contract({
      customerId: b,
      startDate: "2026-06-01T00:00:00Z",
      products: [committed(1, 50)],
    });
    // Apr 6 issues March (due Apr 6); Jun 5 issues April and May (due Jun 5); Jul 5 issues A's June (due Jul 5)
    // and B's June (due Jul 5 + 30 days = Aug 4).
    for (const at of ["2026-04-06T00:00:00Z", "2026-06-05T00:00:00Z", "2026-07-05T00:00:00Z"]) await account.run(at);
    const byMonth = Object.fromEntries(
      (await account.invoices(contractA.id)).map((invoice) => [invoice.billingCycle.startTime.slice(0, 7), invoice]),
    );
    expect(Object.keys(byMonth).sort()).toEqual(["2026-03", "2026-04", "2026-05", "2026-06"]);
    expect(byMonth["2026-03"].dueDate).toBe("2026-04-06T00:00:00.000Z");
    expect(byMonth["2026-06"].dueDate).toBe("2026-07-05T00:00:00.000Z");
    const [juneB] = await account.invoices(contractB.id);
    expect(juneB.dueDate).toBe("2026-08-04T00:00:00.000Z");

    // A pays 30.00 of June on Jul 8 (recorded now, dated then).
    await account.post(
      `/invoices/${byMonth["2026-06"].id}/payments`,
      { amount: 30, date: "2026-07-08T00:00:00Z" },
      201,
    );
    const report = (query: string) =>
      server.rest("GET", `/reports/receivables?${query}`, { token: account.token }).then((response) => {
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        return response.body;
      });

    // As of Jul 10: March 95 days past due (90+) 100.00; April and May 35 days (31-60) 200.00; June 5 days (1-30)
    // 100.00 − 30.00 paid on Jul 8 = 70.00. B's June is not due before Aug 4: current 50.00.
    const july10 = await report("asOf=2026-07-10T00:00:00Z&currency=USD");
    const agingA = { ...zero, "1-30": 70, "31-60": 200, "90+": 100, total: 370 };
    const agingB = { ...zero, current: 50, total: 50 };
    expect(july10.asOf).toBe("2026-07-10T00:00:00.000Z");
    expect(july10.customers).toEqual(
      [
        { customerId: a, aging: agingA },
        { customerId: b, aging: agingB },
      ].sort((x, y) => (x.customerId < y.customerId ? -1 : 1)),
    );
    // Total: current 50 + 1-30 70 + 31-60 200 + 90+ 100 = 420.00.
    expect(july10.total).toEqual({ ...zero, current: 50, "1-30": 70, "31-60": 200, "90+": 100, total: 420 });

    // As of Jul 7 the payment was not made yet: June owes 100.00, 2 days past due.
    const july7 = await report("asOf=2026-07-07T00:00:00Z&currency=USD");
    expect(july7.total).toEqual({ ...zero, current: 50, "1-30": 100, "31-60": 200, "90+": 100, total: 450 });

    // As of Jun 10, before June was issued: March 65 days past due (61-90), April and May 5 days (1-30).
    const june10 = await report("asOf=2026-06-10T00:00:00Z&currency=USD");
    expect(june10.customers).toEqual([{ customerId: a, aging: { ...zero, "1-30": 200, "61-90": 100, total: 300 } }]);

    // Now (default asOf): a 20.00 OFFSET credit note on April and B's June voided. Every A invoice is over 90 days
    // past due by now (the machine's date is past Nov 2026; June was due Jul 5): 370.00 − 20.00 = 350.00, all 90+.
    await account.post(
      "/credit-notes",
      { invoiceId: byMonth["2026-04"].id, amount: 20, reason: "OTHER", refund: "OFFSET" },
      201,
    );
    await account.post(`/invoices/${juneB.id}/void`, {});
    const now = await report("currency=USD");
    expect(Date.parse(now.asOf)).toBeGreaterThan(Date.parse("2026-11-01T00:00:00Z"));
    expect(now.customers).toEqual([{ customerId: a, aging: { ...zero, "90+": 350, total: 350 } }]);
    expect(now.total).toEqual({ ...zero, "90+": 350, total: 350 });
    // The past answers do not move: the credit note and the void are dated now.
    expect((await report("asOf=2026-07-10T00:00:00Z&currency=USD")).total.total).toBe(420);

    // Another currency: nothing owed. tRPC answers the same as REST.
    expect((await report("currency=EUR")).total).toEqual(zero);
    const trpc = await account.trpc().reports.receivables.query({ asOf: "2026-07-10T00:00:00Z", currency: "USD" });
    expect(trpc).toEqual(july10);
  });

  it("refuses a missing or unknown currency and a bad asOf with 400 naming the field", async () => {
    const account = await billingAccount(server);
    for (const [query, field] of [
      ["asOf=2026-07-10T00:00:00Z", "currency"],
      ["currency=XYZ", "currency"],
      ["currency=USD&asOf=yesterday", "asOf"],
    ]) {
      const response = await server.rest("GET", `/reports/receivables?${query}`, { token: account.token });
      expectError(response, 400, "BAD_REQUEST");
      expect(JSON.stringify(response.body)).toContain(field);
    }
  });
});

describe("a change cut short after it is logged", () => {
  it("moves the receivables and revenue once, when the next read completes it", async () => {
    const account = await billingAccount(server, { name: "Crash Co", netTermsDays: 0 });
    const contract = await account.contract({ startDate: "2026-01-01T00:00:00Z", products: [committed(1, 31)] });
    await account.run("2026-02-01T00:00:00Z");
    const [january] = await account.invoices(contract.id);
    // A payment of 11.00 logged, then the invoice's write fails: 500; its ledgers' entries may or may not be written.
    faults.fail("invoices.applyChange", january.id, 1);
    const payment = { amount: 11, date: "2026-02-02T00:00:00Z" };
    const failed = await server.rest("POST", `/invoices/${january.id}/payments`, {
      token: account.token,
      body: payment,
    });
    expect(failed.status).toBe(500);
    // Reading the invoice (three times) completes the payment: the receivable falls by 11.00 once: 31 − 11 = 20.00.
    for (let read = 0; read < 3; read += 1)
      await server.rest("GET", `/invoices/${january.id}`, { token: account.token });
    const aging = await server.rest("GET", "/reports/receivables?currency=USD&asOf=2026-02-03T00:00:00Z", {
      token: account.token,
    });
    // Due Feb 1 (0 days' terms), 2 days past due on Feb 3.
    expect(aging.body.total).toEqual({ ...zero, "1-30": 20, total: 20 });
    // January's 31.00: billed on Feb 1 once, recognized 1.00 a day in January.
    const revenue = await server.rest(
      "GET",
      "/reports/revenue?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&currency=USD",
      { token: account.token },
    );
    const figures = revenue.body.periods.map(({ billed, recognized, deferred }: Record<string, number>) => [
      billed,
      recognized,
      deferred,
    ]);
    expect(figures).toEqual([
      [0, 31, 0],
      [31, 0, 0],
    ]);
  });
});
