import { describe, expect, it } from "vitest";
import { newClient, useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("billing", () => {
  it("previews the current cycle's invoice, then a run makes it once", async () => {
    const { client } = await newClient(ctx.server);
    const customer = await client.customers.create({ name: "Billed" });
    const contract = await client.contracts.create({
      customerId: customer.id,
      name: "Seats",
      startDate: "2024-01-01T00:00:00Z",
      products: [{ displayName: "Seats", scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 }, commitment: { units: 4, price: 12.5 } }],
    });
    // 4 × 12.50 = 50.00
    const preview = await client.invoices.preview({ contractId: contract.id, at: "2024-01-20T00:00:00Z" });
    expect(preview).toMatchObject({ amount: 50, billingCycle: { startTime: "2024-01-01T00:00:00.000Z", endTime: "2024-02-01T00:00:00.000Z" } });
    expect((await client.invoices.list()).total).toBe(0);

    const first = await client.billing.run({ at: "2024-02-01T00:00:00Z" });
    expect(first).toMatchObject({ invoicesCreated: 1, failures: [] });
    expect(await client.billing.run({ at: "2024-02-01T00:00:00Z" })).toMatchObject({ invoicesCreated: 0 });
    const invoice = await client.invoices.get(first.invoiceIds[0]!);
    expect(invoice).toMatchObject({ contractId: contract.id, amount: 50, lineItems: [expect.objectContaining({ kind: "COMMITMENT", quantity: 4 })] });
  });
});
