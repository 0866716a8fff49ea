import { describe, expect, it, vi } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed, cyclesOf, day, monthly, runToEnd, sumMicros } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { walkRestPages } from "./support/server.js";

/**
 * Invoices at the edges (docs/decisions.md, "Billing engine" → Whole days, Runs stay in the present); bounded runs,
 * whose backlogs take most of the time, are in billing.backlogs.test.ts.
 */
const control = testHooks();
const server = useTestServer({ hooks: control.hooks });
// A year of invoices billed through the API takes seconds on a loaded two-core machine: correctness, not speed.
vi.setConfig({ testTimeout: 120_000 });

describe("a contract covers whole UTC days, up to the day of its end", () => {
  it.each([
    ["times of day", "2024-03-05T14:22:10Z", "2025-03-05T14:22:10Z", 5, "2024-03-05", "2025-02-05", "2025-03-05"],
    ["noon to noon", "2024-03-05T12:00:00Z", "2025-03-05T12:00:00Z", 5, "2024-03-05", "2025-02-05", "2025-03-05"],
    // 00:30+01:00 on Mar 5 is 23:30Z on Mar 4: the UTC days run from Mar 4 to Mar 4, billed on the 4th.
    [
      "an offset whose UTC day differs",
      "2024-03-05T00:30:00+01:00",
      "2025-03-05T00:30:00+01:00",
      4,
      "2024-03-04",
      "2025-02-04",
      "2025-03-04",
    ],
  ])(
    "a one-year contract (%s) is 12 monthly cycles of 100.00: 1,200.00",
    async (_, startDate, endDate, billingDay, first, lastStart, lastEnd) => {
      const account = await billingAccount(server);
      const contract = await account.contract({ startDate, endDate, products: [committed(1, 100, billingDay)] });
      await runToEnd(account, "2026-01-01T00:00:00Z");
      const invoices = await account.invoices(contract.id);
      expect(invoices).toHaveLength(12);
      expect(cyclesOf(invoices)[0]![0]).toBe(day(first));
      expect(cyclesOf(invoices).at(-1)).toEqual([day(lastStart), day(lastEnd)]);
      // 12 × (1 × 100) = 1,200.00
      expect(sumMicros(invoices.map((invoice) => invoice.amount))).toBe(1_200_000_000);
    },
  );

  it("prorates the first and last cycles by covered days, the end's day not covered", async () => {
    const account = await billingAccount(server);
    // Covers Jan 20 .. Mar 9 (the end's day, Mar 10, is not covered), billed on the 1st.
    const contract = await account.contract({
      startDate: "2024-01-20T23:00:00Z",
      endDate: "2024-03-10T01:00:00Z",
      shouldProRateInvoices: true,
      products: [committed(1, 310, 1)],
    });
    await runToEnd(account, "2024-06-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    expect(cyclesOf(invoices)).toEqual([
      [day("2024-01-01"), day("2024-02-01")],
      [day("2024-02-01"), day("2024-03-01")],
      [day("2024-03-01"), day("2024-03-10")],
    ]);
    // Jan 20..31 = 12 of 31 days: 310 × 12 / 31 = 120.00; February in full: 310.00; Mar 1..9 = 9 of 31: 90.00.
    expect(invoices.map((invoice) => invoice.amount)).toEqual([120, 310, 90]);
  });

  it("refuses an endDate on the start's UTC day, whatever the times (400 naming endDate)", async () => {
    const account = await billingAccount(server);
    for (const [startDate, endDate] of [
      ["2024-03-05T14:22:10Z", "2024-03-05T14:22:10Z"],
      ["2024-03-05T00:00:00Z", "2024-03-05T23:59:59Z"],
      ["2024-03-05T10:00:00Z", "2024-03-06T00:30:00+01:00"],
    ]) {
      const response = await server.rest("POST", "/contracts", {
        token: account.token,
        body: {
          customerId: account.customerId,
          name: "Same day",
          startDate,
          endDate,
          products: [committed(1, 100, 5)],
        },
      });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["endDate"]);
    }
  });
});

describe("runs stay in the present", () => {
  it("refuses `at` later than now plus 5 minutes (400 naming at), and stores nothing", async () => {
    const account = await billingAccount(server);
    await account.contract({ startDate: "1990-01-01T00:00:00Z", products: [committed(1, 100)] });
    await account.grant(50);
    for (const at of ["2099-12-01T00:00:00Z", new Date(Date.now() + 6 * 60_000).toISOString()]) {
      const response = await server.rest("POST", "/billing-runs", { token: account.token, body: { at } });
      expectError(response, 400, "BAD_REQUEST");
      expect(response.body.issues).toEqual([{ path: "at", message: "is in the future" }]);
    }
    expect(await account.allInvoices()).toEqual([]);
    expect(await account.balance()).toBe(50);
    // Within the slack, a run is accepted: its clock may be a little ahead of the server's.
    expect(
      (
        await server.rest("POST", "/billing-runs", {
          token: account.token,
          body: { at: new Date(Date.now() + 60_000).toISOString() },
        })
      ).status,
    ).toBe(200);
  });

  it("lets a preview look ahead: it stores nothing", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(3, 10)] });
    const preview = await account.preview({ contractId: contract.id, at: "2099-06-15T00:00:00Z" });
    expect(preview.status).toBe(200);
    // 3 × 10 = 30.00 for June 2099.
    expect(preview.body.invoice).toMatchObject({
      amount: 30,
      billingCycle: { startTime: day("2099-06-01"), endTime: day("2099-07-01") },
    });
    expect(await account.allInvoices()).toEqual([]);
  });
});

describe("no blocked contracts, no orphan debits", () => {
  it("a failing cycle is reported with its cycle and recorded; later cycles still bill", async () => {
    const account = await billingAccount(server);
    // The first cycle holds the one-time 600,000,000 and the commitment's 600,000,000: 1.2e9, above the 1e9 ceiling.
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [
        { displayName: "Setup", scheduling: monthly(1), pricing: { type: "ONE_TIME", price: 600_000_000 } },
        committed(1, 600_000_000),
      ],
    });
    const first = await account.run("2024-04-01T00:00:00Z");
    expect(first.failures).toEqual([
      {
        contractId: contract.id,
        billingCycle: { startTime: day("2024-01-01"), endTime: day("2024-02-01") },
        message: expect.stringContaining("limits"),
      },
    ]);
    // February and March (600,000,000 each) are billed all the same.
    expect(first.invoicesCreated).toBe(2);
    // The failure is tried again an hour later, not by every call: the next runs bill April and report nothing.
    expect(await account.run("2024-05-01T00:00:00Z")).toMatchObject({ invoicesCreated: 1, failures: [] });
    expect(cyclesOf(await account.invoices(contract.id))).toEqual([
      [day("2024-02-01"), day("2024-03-01")],
      [day("2024-03-01"), day("2024-04-01")],
      [day("2024-04-01"), day("2024-05-01")],
    ]);
  });

  it("the next run completes a debit whose invoice was never written, even after its contract's deletion", async () => {
    const account = await billingAccount(server);
    // 10 × 99.99 = 999.90 a month; credits of 400.00 pay part of January's.
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(10, 99.99)] });
    await account.grant(400);
    // Stop between the two steps: the debit is written, the invoice's insert fails.
    control.fail("invoices.insert", contract.id, 1);
    const crashed = await account.run("2024-02-01T00:00:00Z");
    // The failure says nothing internal.
    expect(crashed.failures).toEqual([
      {
        contractId: contract.id,
        billingCycle: { startTime: day("2024-01-01"), endTime: day("2024-02-01") },
        message: expect.not.stringContaining("injected"),
      },
    ]);
    const debits = (await account.ledger()).filter((entry) => entry.type === "Usage");
    expect(debits.map((entry) => entry.amount)).toEqual([-400]);
    expect(await account.allInvoices()).toEqual([]);

    expect((await account.deleteContract(contract.id)).status).toBe(200);
    const next = await account.run("2024-06-01T00:00:00Z");
    expect(next.invoicesCreated).toBe(1);
    const [invoice] = await account.allInvoices();
    // January's invoice, paid by the debit already made: 999.90 − 400.00 = 599.90 due; the ledger unchanged.
    expect(invoice).toMatchObject({
      id: debits[0].invoiceId,
      amount: 599.9,
      revenueBreakdown: { subtotal: 999.9, creditsUsed: 400, total: 599.9 },
    });
    expect((await account.ledger()).filter((entry) => entry.type === "Usage")).toEqual(debits);
    // Nothing more for the deleted contract, however often runs happen.
    expect(await account.run("2024-06-01T00:00:00Z")).toMatchObject({ invoicesCreated: 0, failures: [] });
  });
});

describe("invoice lists", () => {
  it("list in creation order: a walk started earlier sees invoices of older cycles created after it", async () => {
    const account = await billingAccount(server);
    await account.contract({ startDate: "2024-06-01T00:00:00Z", products: [committed(1, 10)] });
    await account.run("2024-09-01T00:00:00Z"); // June, July, August
    const firstPage = (await server.rest("GET", "/invoices?limit=2", { token: account.token })).body;
    expect(firstPage).toMatchObject({ total: 3, hasMore: true });

    // A contract whose cycles are older than every invoice listed so far.
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(2, 10)] });
    await account.run("2024-03-01T00:00:00Z"); // January, February
    const rest = (
      await server.rest("GET", `/invoices?limit=10&cursor=${firstPage.nextCursor}`, { token: account.token })
    ).body;
    expect(rest).toMatchObject({ total: 5, hasMore: false });
    const walked = [...firstPage.invoices, ...rest.invoices];
    expect(walked.map((invoice) => invoice.billingCycle.startTime)).toEqual(
      ["2024-06-01", "2024-07-01", "2024-08-01", "2024-01-01", "2024-02-01"].map(day),
    );
    // 1 × 10 for the first contract's invoices, 2 × 10 for the second's.
    expect(walked.map((invoice) => invoice.amount)).toEqual([10, 10, 10, 20, 20]);
    expect((await walkRestPages(server, account.token, "/invoices", "invoices", 2)).ids).toEqual(
      walked.map((invoice) => invoice.id),
    );
  });

  it("takes customerId and contractId in any letter case", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] });
    await account.run("2024-03-01T00:00:00Z");
    const lower = (await server.rest("GET", `/invoices?customerId=${account.customerId}`, { token: account.token }))
      .body;
    expect(lower.total).toBe(2);
    for (const query of [`customerId=${account.customerId.toUpperCase()}`, `contractId=${contract.id.toUpperCase()}`]) {
      const upper = (await server.rest("GET", `/invoices?${query}`, { token: account.token })).body;
      expect(upper).toEqual(lower);
    }
  });
});
