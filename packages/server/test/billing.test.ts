import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingAccount, monthly } from "./support/billing.js";
import { startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const committed = (units: number, price: number, billingDay = 1, extra: Record<string, unknown> = {}) => ({
  displayName: "Seats",
  scheduling: monthly(billingDay),
  commitment: { units, price },
  ...extra,
});

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
      expect(invoice.revenueBreakdown).toEqual({ subtotal: 999.9, overage: 0, discount: 0, creditsUsed: 0, tax: 0, total: 999.9 });
      expect(invoice.amount).toBe(999.9);
      expect(invoice.lineItems).toEqual([
        expect.objectContaining({ kind: "COMMITMENT", quantity: 10, unitPrice: 99.99, invoiceId: invoice.id }),
      ]);
    }
  });
});
