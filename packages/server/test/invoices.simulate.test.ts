import { describe, expect, it } from "vitest";
import { billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN } from "./support/server.js";

/**
 * POST /invoices/simulate (docs/decisions.md, "What would they have paid"): other terms priced over stored usage,
 * stored nowhere, against what the finalized invoices charged.
 */
const server = useTestServer();

const april = { startDate: "2024-04-01T00:00:00Z", endDate: "2024-05-01T00:00:00Z" };
/** 10,000 calls at 0.012, every call after at 0.005. */
const graduated = {
  displayName: "API calls",
  catalogProductId: "calls",
  pricing: {
    type: "GRADUATED",
    tiers: [
      { upTo: 10000, unitPrice: 0.012 },
      { upTo: null, unitPrice: 0.005 },
    ],
  },
};

/** A customer billed 0.01 a call (PER_UNIT) from April 2024, with 15,000 calls measured in April, April invoiced. */
async function billedApril() {
  const account = await billingAccount(server);
  const perUnit = { displayName: "API calls", catalogProductId: "calls", pricing: { type: "PER_UNIT", price: 0.01 } };
  const contract = await account.contract({ startDate: april.startDate, products: [perUnit] });
  await account.measure("calls", "2024-04-05", 6000);
  await account.measure("calls", "2024-04-20", 9000);
  await account.run(april.endDate);
  const simulate = (body: Record<string, unknown>, token = account.token) =>
    server.rest("POST", "/invoices/simulate", { token, body: { customerId: account.customerId, ...body } });
  return { account, contract, simulate };
}

describe("POST /invoices/simulate", () => {
  it("prices last month's usage at a GRADUATED price against the PER_UNIT it was billed at", async () => {
    const { account, contract, simulate } = await billedApril();
    // Billed: 15,000 × 0.01 = 150.00.
    expect((await account.invoices(contract.id)).map((invoice) => [invoice.status, invoice.amount])).toEqual([
      ["FINALIZED", 150],
    ]);
    const before = await account.allInvoices();

    const answer = await simulate({ contractId: contract.id, products: [graduated], ...april });
    expect(answer.status).toBe(200);
    // 10,000 × 0.012 = 120.00, plus 5,000 × 0.005 = 25.00: 145.00; 145.00 − 150.00 = −5.00.
    expect(answer.body).toMatchObject({ currency: "USD", simulatedTotal: 145, actualTotal: 150, difference: -5 });
    expect(answer.body.invoices).toHaveLength(1);
    expect(answer.body.invoices[0]).toMatchObject({
      contractId: contract.id,
      billingCycle: { startTime: april.startDate.replace("Z", ".000Z"), endTime: april.endDate.replace("Z", ".000Z") },
      amount: 145,
      revenueBreakdown: { subtotal: 145, creditsUsed: 0, total: 145 },
      lineItems: [{ kind: "USAGE", quantity: 15000, revenueBreakdown: { subtotal: 145 } }],
    });
    // Stored nowhere.
    expect(await account.allInvoices()).toEqual(before);

    // The same terms alone (no contract): one cycle, April, the same 145.00; no contract to name.
    const alone = await simulate({ products: [graduated], ...april });
    expect(alone.status).toBe(200);
    expect(alone.body).toMatchObject({ simulatedTotal: 145, actualTotal: 150, difference: -5 });
    expect(alone.body.invoices[0].contractId).toBeUndefined();

    // The contract's own terms: exactly what was billed, no difference.
    const own = await simulate({ contractId: contract.id, ...april });
    expect(own.body).toMatchObject({ simulatedTotal: 150, actualTotal: 150, difference: 0 });
  });

  it("answers a read token: a simulation writes nothing", async () => {
    const { account, contract, simulate } = await billedApril();
    const reader = await server.rest("POST", `/admin/accounts/${account.accountId}/tokens`, {
      token: ADMIN_TOKEN,
      body: { scope: "read" },
    });
    const answer = await simulate({ contractId: contract.id, products: [graduated], ...april }, reader.body.token);
    expect(answer.status).toBe(200);
    expect(answer.body.simulatedTotal).toBe(145);
  });

  it("simulates at most 24 cycles: 25 monthly cycles are a 400 naming endDate", async () => {
    const { contract, simulate } = await billedApril();
    // April 2024 to April 2026: 24 monthly cycles; to May 2026: 25.
    const allowed = await simulate({ contractId: contract.id, ...april, endDate: "2026-04-01T00:00:00Z" });
    expect(allowed.status).toBe(200);
    expect(allowed.body.invoices).toHaveLength(24);
    // Only April has usage: 150.00 by the contract's own price, the 23 other cycles 0.00 (empty usage lines).
    expect(allowed.body).toMatchObject({ simulatedTotal: 150, actualTotal: 150, difference: 0 });
    const refused = await simulate({ contractId: contract.id, ...april, endDate: "2026-05-01T00:00:00Z" });
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual([expect.objectContaining({ path: "endDate" })]);
  });

  it("refuses a period not past or backwards, or no terms without a contract (400 naming the field)", async () => {
    const { simulate } = await billedApril();
    const future = await simulate({
      products: [graduated],
      startDate: april.startDate,
      endDate: "2099-01-01T00:00:00Z",
    });
    expect(future.status).toBe(400);
    expect(future.body.issues).toEqual([expect.objectContaining({ path: "endDate" })]);
    const backwards = await simulate({ products: [graduated], startDate: april.endDate, endDate: april.startDate });
    expect(backwards.status).toBe(400);
    expect(backwards.body.issues).toEqual([expect.objectContaining({ path: "endDate" })]);
    const noTerms = await simulate(april);
    expect(noTerms.status).toBe(400);
    expect(noTerms.body.issues).toEqual([expect.objectContaining({ path: "products" })]);
  });

  it("answers 404 for another account's customer or contract", async () => {
    const { contract } = await billedApril();
    const other = await billingAccount(server);
    const foreignCustomer = await server.rest("POST", "/invoices/simulate", {
      token: other.token,
      body: { customerId: contract.customerId, products: [graduated], ...april },
    });
    expect(foreignCustomer.status).toBe(404);
    const foreignContract = await server.rest("POST", "/invoices/simulate", {
      token: other.token,
      body: { customerId: other.customerId, contractId: contract.id, ...april },
    });
    expect(foreignContract.status).toBe(404);
  });
});
