import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN } from "../../server/test/support/server.js";
import { createAdminClient, createBillingClient } from "../src/index.js";
import { useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("reports", () => {
  it("receivables as of the account's clock, revenue per month and money collected, through the SDK", async () => {
    const admin = createAdminClient({ baseUrl: ctx.server.url, token: ADMIN_TOKEN });
    const { token } = await admin.accounts.createTest("Reported", { at: "2027-01-01T00:00:00Z" });
    const client = createBillingClient({ baseUrl: ctx.server.url, token });
    const customer = await client.customers.create({ name: "Reported Co" });
    const contract = await client.contracts.create({
      customerId: customer.id,
      name: "Fee",
      startDate: "2027-01-01T00:00:00Z",
      products: [
        {
          displayName: "Fee",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          pricing: { type: "FLAT", price: 31 },
        },
      ],
    });
    await client.testClock.advance({ to: "2027-02-01T00:00:00Z" });
    // January's 31.00, issued on the clock's Feb 1 and due 30 days later: current, as of the clock's now.
    const receivables = await client.reports.receivables({ currency: "USD" });
    expect(receivables.asOf).toBe("2027-02-01T00:00:00.000Z");
    expect(receivables.customers).toEqual([
      { customerId: customer.id, aging: { current: 31, "1-30": 0, "31-60": 0, "61-90": 0, "90+": 0, total: 31 } },
    ]);
    // Recognized 1.00 a day in January, billed on Feb 1.
    const revenue = await client.reports.revenue({
      from: "2027-01-01T00:00:00Z",
      to: "2027-03-01T00:00:00Z",
      currency: "USD",
      customerId: customer.id,
    });
    expect(revenue.periods.map(({ billed, recognized, deferred }) => [billed, recognized, deferred])).toEqual([
      [0, 31, 0],
      [31, 0, 0],
    ]);
    // 20.00 of it paid on Feb 3: February collects 20.00, January nothing.
    const invoices = await client.invoices.list({ contractId: contract.id });
    const [january] = invoices.invoices;
    await client.invoices.pay(String(january?.id), { amount: 20, date: "2027-02-03T00:00:00Z" });
    const collections = (from: string, to: string) => client.reports.collections({ from, to, currency: "USD" });
    expect(await collections("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z")).toMatchObject({
      collected: 20,
      refunded: 0,
      net: 20,
    });
    expect((await collections("2027-01-01T00:00:00Z", "2027-02-01T00:00:00Z")).collected).toBe(0);
  });
});
