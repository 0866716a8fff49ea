import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN } from "../../server/test/support/server.js";
import { createAdminClient, createBillingClient } from "../src/index.js";
import { useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("reports", () => {
  it("receivables as of the account's clock and revenue per month, through the SDK", async () => {
    const admin = createAdminClient({ baseUrl: ctx.server.url, token: ADMIN_TOKEN });
    const { token } = await admin.accounts.createTest("Reported", { at: "2027-01-01T00:00:00Z" });
    const client = createBillingClient({ baseUrl: ctx.server.url, token });
    const customer = await client.customers.create({ name: "Reported Co" });
    await client.contracts.create({
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
  });
});
