import { describe, expect, it } from "vitest";
import { ValidationError } from "../src/index.js";
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
      products: [
        {
          displayName: "Seats",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          commitment: { units: 4, price: 12.5 },
        },
      ],
    });
    // 4 × 12.50 = 50.00
    const preview = await client.invoices.preview({ contractId: contract.id, at: "2024-01-20T00:00:00Z" });
    expect(preview).toMatchObject({
      amount: 50,
      billingCycle: { startTime: "2024-01-01T00:00:00.000Z", endTime: "2024-02-01T00:00:00.000Z" },
    });
    expect((await client.invoices.list()).total).toBe(0);

    const first = await client.billing.run({ at: "2024-02-01T00:00:00Z" });
    expect(first).toMatchObject({ invoicesCreated: 1, failures: [], hasMore: false });
    expect(await client.billing.run({ at: "2024-02-01T00:00:00Z" })).toMatchObject({ invoicesCreated: 0 });
    const invoice = await client.invoices.get(first.invoiceIds[0]!);
    expect(invoice).toMatchObject({
      contractId: contract.id,
      amount: 50,
      lineItems: [expect.objectContaining({ kind: "COMMITMENT", quantity: 4 })],
    });
  });

  it("calls again while hasMore, and refuses a run in the future with a ValidationError naming at", async () => {
    const { client } = await newClient(ctx.server);
    const customer = await client.customers.create({ name: "Backlog" });
    const seats = {
      displayName: "Seats",
      scheduling: { duration: { unit: "MONTH" as const, value: 1 }, billingDay: 1 },
      commitment: { units: 1, price: 2 },
    };
    await client.contracts.create({
      customerId: customer.id,
      name: "Old",
      startDate: "2014-01-01T00:00:00Z",
      products: [seats],
    });
    // Jan 2014 .. Dec 2024: 11 years × 12 = 132 invoices of 1 × 2.00, more than one call makes.
    let created = 0;
    let calls = 0;
    for (
      let run = await client.billing.run({ at: "2025-01-01T00:00:00Z" });
      ;
      run = await client.billing.run({ at: "2025-01-01T00:00:00Z" })
    ) {
      calls += 1;
      created += run.invoicesCreated;
      if (!run.hasMore) break;
    }
    expect(calls).toBeGreaterThan(1);
    expect(created).toBe(132);
    expect((await client.invoices.list({ customerId: customer.id })).total).toBe(132);

    const future = client.billing.run({ at: "2099-01-01T00:00:00Z" });
    await expect(future).rejects.toBeInstanceOf(ValidationError);
    await expect(future).rejects.toMatchObject({ status: 400, issues: [{ path: "at", message: "is in the future" }] });
  }, 120_000);

  it("simulates other terms over a past period against what the finalized invoices charged", async () => {
    const { client } = await newClient(ctx.server);
    const customer = await client.customers.create({ name: "Simulated" });
    const seats = (price: number) => ({
      displayName: "Seats",
      scheduling: { duration: { unit: "MONTH" as const, value: 1 }, billingDay: 1 },
      commitment: { units: 4, price },
    });
    const contract = await client.contracts.create({
      customerId: customer.id,
      name: "Seats",
      startDate: "2024-01-01T00:00:00Z",
      products: [seats(12.5)],
    });
    await client.billing.run({ at: "2024-03-01T00:00:00Z" });
    const simulation = await client.invoices.simulate({
      customerId: customer.id,
      contractId: contract.id,
      startDate: "2024-01-01T00:00:00Z",
      endDate: "2024-03-01T00:00:00Z",
      products: [seats(10)],
    });
    // Billed: 4 × 12.50 = 50.00 in January and in February (100.00); simulated: 4 × 10.00 = 40.00 each (80.00).
    expect(simulation).toMatchObject({ simulatedTotal: 80, actualTotal: 100, difference: -20 });
    expect(simulation.invoices.map((invoice) => invoice.amount)).toEqual([40, 40]);
    const tooLong = client.invoices.simulate({
      customerId: customer.id,
      contractId: contract.id,
      startDate: "2024-01-01T00:00:00Z",
      endDate: "2026-02-01T00:00:00Z",
    });
    await expect(tooLong).rejects.toMatchObject({ status: 400, issues: [{ path: "endDate" }] });
  });
});
