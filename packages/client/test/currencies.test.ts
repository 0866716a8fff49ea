import { describe, expect, it } from "vitest";
import { ValidationError } from "../src/index.js";
import { newClient, rejectionOf, useTestServer } from "./helpers.js";

const ctx = useTestServer();

describe("currencies", () => {
  it("creates a JPY contract, grants EUR credits, reads the balance per currency; refuses unknown codes", async () => {
    const { client } = await newClient(ctx.server);
    const customer = await client.customers.create({ name: "Tokyo KK" });
    const contract = await client.contracts.create({
      customerId: customer.id,
      name: "Yen plan",
      startDate: "2024-01-01T00:00:00Z",
      currency: "JPY",
    });
    expect(contract.currency).toBe("JPY");
    expect(
      (await client.contracts.create({ customerId: customer.id, name: "x", startDate: "2024-01-01T00:00:00Z" }))
        .currency,
    ).toBe("USD");
    const grant = await client.credits.grant({ customerId: customer.id, amount: 12.5, type: "Grant", currency: "EUR" });
    expect(grant).toMatchObject({ currency: "EUR", balanceAfterEntry: 12.5 });
    expect(await client.credits.balance({ customerId: customer.id })).toMatchObject({
      balance: 0,
      currency: "USD",
      balances: [
        { currency: "USD", balance: 0 },
        { currency: "EUR", balance: 12.5 },
      ],
    });
    const unknown = await rejectionOf(
      client.contracts.create({
        customerId: customer.id,
        name: "x",
        startDate: "2024-01-01T00:00:00Z",
        // @ts-expect-error not an ISO 4217 code: the SDK's types refuse it, and so does the service
        currency: "ABC",
      }),
    );
    expect(unknown).toBeInstanceOf(ValidationError);
  });
});
