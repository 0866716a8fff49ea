import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN } from "../../server/test/support/server.js";
import { createAdminClient, createBillingClient, NotFoundError } from "../src/index.js";
import { newClient, rejectionOf, useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("testClock", () => {
  it("a test account made by the admin client bills a month by advancing its clock", async () => {
    const admin = createAdminClient({ baseUrl: ctx.server.url, token: ADMIN_TOKEN });
    const { account, token } = await admin.accounts.createTest("Clocked", { at: "2027-01-01T00:00:00Z" });
    expect(account.testClock).toEqual({ at: "2027-01-01T00:00:00.000Z" });
    const client = createBillingClient({ baseUrl: ctx.server.url, token });
    const customer = await client.customers.create({ name: "Clocked Co" });
    await client.contracts.create({
      customerId: customer.id,
      name: "Fee",
      startDate: "2027-01-01T00:00:00Z",
      products: [
        {
          displayName: "Fee",
          scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
          pricing: { type: "FLAT", price: 10 },
        },
      ],
    });
    const { testClock, advance } = await client.testClock.advance({ to: "2027-02-01T00:00:00Z" });
    expect(testClock).toEqual({ at: "2027-02-01T00:00:00.000Z" });
    expect(advance).toMatchObject({ invoicesCreated: 1, hasMore: false });
    expect(await client.testClock.get()).toEqual({ at: "2027-02-01T00:00:00.000Z" });
    // 10.00 for January, issued on the clock's Feb 1.
    const [invoice] = (await client.invoices.list()).invoices;
    expect(invoice).toMatchObject({ amount: 10, finalizedAt: "2027-02-01T00:00:00.000Z" });
  });

  it("a live account has no clock: NOT_FOUND", async () => {
    const { client } = await newClient(ctx.server);
    const error = await rejectionOf(client.testClock.get());
    expect(error).toBeInstanceOf(NotFoundError);
  });
});
