import { describe, expect, it } from "vitest";
import { ConflictError, createBillingClient, NotFoundError, ValidationError } from "../src/index.js";
import { lostAnswerFetch, newClient, rejectionOf, unknownId, useTestServer } from "./helpers.js";

const ctx = useTestServer();

async function withCustomer() {
  const setup = await newClient(ctx.server);
  const customer = await setup.client.customers.create({ name: "Granted" });
  return { ...setup, customerId: customer.id };
}

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe("grants with terms", () => {
  it("grants with effectiveAt, expiresAt and priority; the balance lists the grants in burn order", async () => {
    const { client, customerId } = await withCustomer();
    const expiresAt = inDays(30);
    const lasting = await client.credits.grant({
      customerId,
      amount: 40,
      type: "Grant",
      effectiveAt: "2024-01-01T00:00:00Z",
    });
    const expiring = await client.credits.grant({ customerId, amount: 12.5, type: "Grant", expiresAt });
    const first = await client.credits.grant({ customerId, amount: 3, type: "Grant", priority: 0 });
    expect(expiring).toMatchObject({
      type: "Grant",
      grantId: expiring.id,
      amount: 12.5,
      balanceAfterEntry: 52.5,
      expiresAt,
      priority: 50,
      currency: "USD",
    });
    expect(lasting).toMatchObject({ effectiveAt: "2024-01-01T00:00:00.000Z", priority: 50 });
    expect(lasting.expiresAt).toBeUndefined();

    // Priority 0 first; then, at 50, the grant that expires before the one that never does. 40 + 12.5 + 3 = 55.5
    const balance = await client.credits.balance({ customerId });
    expect(balance).toEqual({
      balance: 55.5,
      currency: "USD",
      balances: [{ currency: "USD", balance: 55.5 }],
      grants: [
        { grantId: first.id, amount: 3, remaining: 3, effectiveAt: first.effectiveAt, priority: 0, currency: "USD" },
        {
          grantId: expiring.id,
          amount: 12.5,
          remaining: 12.5,
          effectiveAt: expiring.effectiveAt,
          expiresAt,
          priority: 50,
          currency: "USD",
        },
        {
          grantId: lasting.id,
          amount: 40,
          remaining: 40,
          effectiveAt: "2024-01-01T00:00:00.000Z",
          priority: 50,
          currency: "USD",
        },
      ],
    });
  });

  it("refuses an expiry that is not after now, naming expiresAt, and writes nothing", async () => {
    const { client, customerId } = await withCustomer();
    const refused = await rejectionOf(
      client.credits.grant({ customerId, amount: 1, type: "Grant", expiresAt: "2024-01-01T00:00:00Z" }),
    );
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).issues.map((issue) => issue.path)).toEqual(["expiresAt"]);
    expect(await client.credits.balance({ customerId })).toEqual({
      balance: 0,
      currency: "USD",
      balances: [{ currency: "USD", balance: 0 }],
      grants: [],
    });
    await expect(client.credits.balance({ customerId: unknownId() })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("credits.void", () => {
  it("voids what is left of a grant once: the Void entry, then ConflictError", async () => {
    const { client, customerId } = await withCustomer();
    await client.credits.grant({ customerId, amount: 5, type: "Grant" });
    const grant = await client.credits.grant({ customerId, amount: 7.25, type: "Grant" });
    const voided = await client.credits.void(grant.id);
    // 5 + 7.25 − 7.25 = 5
    expect(voided).toMatchObject({ type: "Void", grantId: grant.id, amount: -7.25, balanceAfterEntry: 5 });
    await expect(client.credits.void(grant.id)).rejects.toBeInstanceOf(ConflictError);
    await expect(client.credits.void(unknownId())).rejects.toBeInstanceOf(NotFoundError);
    expect((await client.credits.list({ customerId })).entries.map((entry) => entry.type)).toEqual([
      "Grant",
      "Grant",
      "Void",
    ]);
  });

  it("retried after a lost answer, gets the first answer instead of a conflict, and voids once", async () => {
    const { client, customerId, token } = await withCustomer();
    const grant = await client.credits.grant({ customerId, amount: 9, type: "Grant" });
    const { fetch, counter } = lostAnswerFetch();
    const flaky = createBillingClient({ baseUrl: ctx.server.url, token, fetch });
    const voided = await flaky.credits.void(grant.id);
    expect(counter.calls).toBe(2);
    expect(voided).toMatchObject({ type: "Void", amount: -9, balanceAfterEntry: 0 });
    expect((await client.credits.list({ customerId })).entries.map((entry) => entry.id)).toEqual([grant.id, voided.id]);
  });
});
