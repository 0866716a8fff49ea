import { describe, expect, it } from "vitest";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

const server = useTestServer();

describe("billing cycles and charges, worked by hand", () => {
  it("charges units × price per monthly cycle, invoicing each cycle once it has ended", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(10, 99.99)] });
    const run = await account.run("2024-03-15T00:00:00Z");
    expect(run).toMatchObject({ contractsBilled: 1, invoicesCreated: 2, failures: [] });
    const invoices = await account.invoices(contract.id);
    expect(invoices.map((invoice) => [invoice.billingCycle.startTime, invoice.billingCycle.endTime])).toEqual([
      ["2024-01-01T00:00:00.000Z", "2024-02-01T00:00:00.000Z"],
      ["2024-02-01T00:00:00.000Z", "2024-03-01T00:00:00.000Z"],
    ]);
    for (const invoice of invoices) {
      // 10 × 99.99 = 999.90
      expect(invoice.revenueBreakdown).toEqual({
        subtotal: 999.9,
        overage: 0,
        discount: 0,
        creditsUsed: 0,
        tax: 0,
        taxInclusive: 0,
        total: 999.9,
      });
      expect(invoice.amount).toBe(999.9);
      expect(invoice.lineItems).toEqual([
        expect.objectContaining({ kind: "COMMITMENT", quantity: 10, unitPrice: 99.99, invoiceId: invoice.id }),
      ]);
    }
  });

  it("reports a contract that cannot be billed in `failures` and still bills the others", async () => {
    const account = await billingAccount(server);
    const before = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] });
    // 2 × 600,000,000 = 1.2e9 USD per cycle: each product within the 1e9 USD ceiling, their invoice above it.
    const huge = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      products: [committed(1, 600_000_000), committed(1, 600_000_000)],
    });
    const after = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(2, 10)] });
    const run = await account.run("2024-02-01T00:00:00Z");
    expect(run).toMatchObject({
      contractsBilled: 3,
      invoicesCreated: 2,
      failures: [{ contractId: huge.id, message: expect.any(String) }],
    });
    expect((await account.invoices(before.id)).map((invoice) => invoice.amount)).toEqual([10]); // 1 × 10
    expect((await account.invoices(after.id)).map((invoice) => invoice.amount)).toEqual([20]); // 2 × 10
    expect(await account.invoices(huge.id)).toEqual([]);
  });
});
