import { describe, expect, it } from "vitest";
import { billingAccount, committed, day, monthly, sumMicros } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

const server = useTestServer();

/** Regressions found by the engine's tests: rounding, credits under concurrency, names, bounds. */
describe("billing limits and rounding", () => {
  it("concurrent runs debit whole cents only, exactly what the invoices show", async () => {
    for (let round = 0; round < 5; round += 1) {
      const account = await billingAccount(server);
      await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 5)] });
      await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 5)] });
      await account.grant(12.005);
      await Promise.all([account.run("2024-03-01T00:00:00Z"), account.run("2024-02-01T00:00:00Z")]);
      const debits = (await account.ledger()).filter((entry) => entry.type === "Usage").map((entry) => entry.amount);
      const used = (await account.allInvoices()).map((invoice) => invoice.revenueBreakdown.creditsUsed);
      // 12.005 pays 5 + 5 + 2.00 in whole cents; 0.005 stays on the balance.
      expect(-sumMicros(debits)).toBe(sumMicros(used));
      expect(await account.balance()).toBe(0.005);
    }
  });

  it("a run exactly at a prepaid cycle's start makes its invoice", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(10, 100, 1, { paymentTerm: "Prepayment" })],
    });
    expect(await account.run("2024-01-01T00:00:00Z")).toMatchObject({ invoicesCreated: 1 });
    expect((await account.invoices(contract.id)).map((invoice) => invoice.billingCycle.startTime)).toEqual([
      day("2024-01-01"),
    ]);
  });

  it("rounds a one-time price to whole cents, and credits pay whole cents", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [{ displayName: "Setup", scheduling: monthly(1), pricing: { type: "ONE_TIME", price: 10.005 } }],
    });
    await account.grant(100);
    await account.run("2024-03-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    // 10.005 → 10.01 (half up); the next cycles have nothing to bill, so no empty invoices.
    expect(invoices).toHaveLength(1);
    expect(invoices[0].revenueBreakdown).toMatchObject({ subtotal: 10.01, creditsUsed: 10.01, total: 0 });
    expect((await account.ledger()).map((entry) => entry.amount)).toEqual([100, -10.01]);
  });

  it("computes a product group line exactly and rounds it once", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      productGroups: [
        {
          displayName: "G",
          baseAmount: 0.005,
          commitment: { units: 1, price: 0.005, scheduling: monthly(1) },
          products: [],
        },
      ],
    });
    await account.run("2024-02-01T00:00:00Z");
    // 0.005 + 1 × 0.005 = 0.010 exactly → 0.01 (rounding each part would give 0.02).
    expect((await account.invoices(contract.id))[0].amount).toBe(0.01);
  });

  it("bills and previews contracts with 200-character names", async () => {
    const account = await billingAccount(server);
    const long = await account.contract({
      name: "N".repeat(200),
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(1, 10)],
    });
    const longProduct = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(1, 10, 1, { displayName: "P".repeat(200) })],
    });
    expect((await account.preview({ contractId: long.id, at: "2024-01-10T00:00:00Z" })).status).toBe(200);
    expect((await account.preview({ contractId: longProduct.id, at: "2024-01-10T00:00:00Z" })).status).toBe(200);
    expect(await account.run("2024-02-01T00:00:00Z")).toMatchObject({ invoicesCreated: 2, failures: [] });
  });

  it("refuses a commitment whose cycle charge passes the money ceiling (400); invoices above it are 409", async () => {
    const account = await billingAccount(server);
    const refused = await server.rest("POST", "/contracts", {
      token: account.token,
      body: {
        customerId: account.customerId,
        name: "Huge",
        startDate: "2024-01-01T00:00:00Z",
        products: [committed(1_000_000, 10_000)],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "products.0.commitment.price" })]),
    );
    // Two products each within the ceiling, together above it.
    const big = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(1, 600_000_000), committed(1, 600_000_000)],
    });
    const preview = await account.preview({ contractId: big.id, at: "2024-01-10T00:00:00Z" });
    expect(preview.status).toBe(409);
    expect(await account.run("2024-02-01T00:00:00Z")).toMatchObject({
      invoicesCreated: 0,
      failures: [expect.objectContaining({ contractId: big.id })],
    });
  });

  it.each(["1969-12-31T23:59:59Z", "2100-01-01T00:00:00Z", "2200-01-01T00:00:00Z"])(
    "refuses a contract date outside 1970–2099: %s",
    async (date) => {
      const account = await billingAccount(server);
      const response = await server.rest("POST", "/contracts", {
        token: account.token,
        body: { customerId: account.customerId, name: "Out of range", startDate: date, products: [committed(1, 10)] },
      });
      expect(response.status).toBe(400);
      expect(response.body.issues).toEqual([expect.objectContaining({ path: "startDate" })]);
    },
  );

  it("lists a contract's invoices in billing-cycle order from its first cycle, even one starting in 1969", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({
      startDate: "1970-01-05T00:00:00Z",
      endDate: "1970-06-01T00:00:00Z",
      products: [committed(1, 10, 10)],
    });
    await account.run("1971-01-01T00:00:00Z");
    const starts = (await account.invoices(contract.id)).map((invoice) => invoice.billingCycle.startTime);
    expect(starts[0]).toBe("1969-12-10T00:00:00.000Z");
    expect(starts).toEqual([...starts].sort());
    expect(starts).toHaveLength(6);
  });
});
