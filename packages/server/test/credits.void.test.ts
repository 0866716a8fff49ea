import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed } from "./support/billing.js";
import { startTestServer, type TestServer, trpcErrorCode } from "./support/server.js";

/** POST /credits/{entryId}/void (docs/decisions.md, "Credit ledger" → Void). */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const rows = (entries: any[]) => entries.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry]);
const voidEntry = (token: string, entryId: string, body?: unknown) =>
  server.rest("POST", `/credits/${entryId}/void`, { token, body });

describe("voiding a grant", () => {
  it("removes all of an untouched grant: 201 with the Void entry", async () => {
    const account = await billingAccount(server);
    await account.grant(40);
    const grant = (await account.grant(12.345678)).entry;
    const { status, body } = await voidEntry(account.token, grant.id);
    expect(status).toBe(201);
    expect(body).toEqual({
      entry: {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        customerId: account.customerId,
        createdAt: expect.any(String),
        type: "Void",
        amount: -12.345678,
        currency: "USD",
        balanceAfterEntry: 40,
        integrationEntities: [],
        grantId: grant.id,
      },
    });
    expect((await account.ledger()).at(-1)).toEqual(body.entry);
    const balance = (
      await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, { token: account.token })
    ).body;
    expect(balance.balance).toBe(40);
    expect(balance.grants.map((open: any) => open.grantId)).not.toContain(grant.id);
  });

  it("removes what is left after invoices used part of it; the invoices keep their credits", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(3, 10)] });
    const grant = (await account.grant(100)).entry;
    await account.run("2024-02-01T00:00:00Z");
    expect((await voidEntry(account.token, grant.id)).body.entry).toMatchObject({
      type: "Void",
      amount: -70,
      balanceAfterEntry: 0,
      grantId: grant.id,
    });
    await account.run("2024-03-01T00:00:00Z");
    // January paid 3 × 10 = 30 of the 100; the void took the other 70; February finds nothing.
    expect((await account.invoices(contract.id)).map((invoice) => invoice.revenueBreakdown.creditsUsed)).toEqual([
      30, 0,
    ]);
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 100, 100],
      ["Usage", -30, 70],
      ["Void", -70, 0],
    ]);
  });

  it("twice writes one entry: the second is 409, as is a grant spent to nothing", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 5)] });
    const grant = (await account.grant(9)).entry;
    expect((await voidEntry(account.token, grant.id)).status).toBe(201);
    const again = await voidEntry(account.token, grant.id);
    expectError(again, 409, "CONFLICT");
    expect(again.body.message).toContain("Nothing is left");

    const spent = (await account.grant(5)).entry;
    await account.run("2024-02-01T00:00:00Z");
    expect((await account.invoices(contract.id))[0].revenueBreakdown.creditsUsed).toBe(5);
    expectError(await voidEntry(account.token, spent.id), 409, "CONFLICT");
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 9, 9],
      ["Void", -9, 0],
      ["Grant", 5, 5],
      ["Usage", -5, 0],
    ]);
  });

  it("concurrently (REST, tRPC, with or without Idempotency-Key) writes one entry; the others are 409", async () => {
    const account = await billingAccount(server);
    for (let round = 0; round < 3; round += 1) {
      const grant = (await account.grant(6)).entry;
      const client = account.trpc();
      const answers = await Promise.all([
        ...Array.from({ length: 6 }, () => voidEntry(account.token, grant.id).then((response) => response.status)),
        ...Array.from({ length: 3 }, (_, i) =>
          server
            .rest("POST", `/credits/${grant.id}/void`, {
              token: account.token,
              headers: { "idempotency-key": `void-${round}-${i}` },
            })
            .then((response) => response.status),
        ),
        ...Array.from({ length: 3 }, () =>
          client.credits.void.mutate({ entryId: grant.id }).then(
            () => 201,
            () => 409,
          ),
        ),
      ]);
      expect(answers.sort()).toEqual([201, ...Array.from({ length: 11 }, () => 409)]);
    }
    const ledger = await account.ledger();
    expect(rows(ledger)).toEqual([
      ["Grant", 6, 6],
      ["Void", -6, 0],
      ["Grant", 6, 6],
      ["Void", -6, 0],
      ["Grant", 6, 6],
      ["Void", -6, 0],
    ]);
  });
});

describe("what cannot be voided", () => {
  it("an entry that is not a grant: 409, nothing written", async () => {
    const account = await billingAccount(server);
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 5)] });
    const grant = (await account.grant(8)).entry;
    await account.run("2024-02-01T00:00:00Z");
    const usage = (await account.ledger())[1];
    expect(usage).toMatchObject({ type: "Usage", amount: -5, grantId: grant.id });
    const refused = await voidEntry(account.token, usage.id);
    expectError(refused, 409, "CONFLICT");
    expect(refused.body.message).toContain("Only a grant");
    const voided = (await voidEntry(account.token, grant.id)).body.entry;
    expectError(await voidEntry(account.token, voided.id), 409, "CONFLICT");
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 8, 8],
      ["Usage", -5, 3],
      ["Void", -3, 0],
    ]);
  });

  it("another account's entry, an unknown or a malformed id: 404, nothing written", async () => {
    const account = await billingAccount(server);
    const grant = (await account.grant(8)).entry;
    const other = await billingAccount(server);
    for (const entryId of [
      grant.id,
      grant.id.toUpperCase(),
      "0123456789abcdef01234567",
      "not-an-id",
      "%7B%22%24ne%22%3Anull%7D",
    ]) {
      expectError(await voidEntry(other.token, entryId), 404, "NOT_FOUND");
    }
    expect(await trpcErrorCode(other.trpc().credits.void.mutate({ entryId: grant.id }))).toBe("NOT_FOUND");
    expect(rows(await account.ledger())).toEqual([["Grant", 8, 8]]);
    // The owner's id in upper case names the same entry.
    expect((await voidEntry(account.token, grant.id.toUpperCase())).status).toBe(201);
  });

  it("a body with fields: 400, and no token: 401", async () => {
    const account = await billingAccount(server);
    const grant = (await account.grant(8)).entry;
    const response = await voidEntry(account.token, grant.id, { amount: 3 });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.message).toContain("amount");
    expect((await server.rest("POST", `/credits/${grant.id}/void`)).status).toBe(401);
    expect(rows(await account.ledger())).toEqual([["Grant", 8, 8]]);
  });
});

describe("grants with money left: at most 100 per customer", () => {
  it("the 101st is 409 and leaves nothing behind, its expiry included; a void makes room", async () => {
    const account = await billingAccount(server);
    const grants = [];
    for (let i = 0; i < 100; i += 1) grants.push((await account.grant(1)).entry);
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const refused = await server.rest("POST", "/credits", {
      token: account.token,
      body: { customerId: account.customerId, amount: 1, type: "Grant", expiresAt },
    });
    expectError(refused, 409, "CONFLICT");
    expect(refused.body.message).toContain("100 grants with money left");
    expect(await server.service.db.collection("credit_expiries").countDocuments({ accountId: account.accountId })).toBe(
      0,
    );
    expect((await voidEntry(account.token, grants[0].id)).status).toBe(201);
    expect((await account.grant(1, account.customerId, { expiresAt })).entry.balanceAfterEntry).toBe(100);
    expect(await server.service.db.collection("credit_expiries").countDocuments({ accountId: account.accountId })).toBe(
      1,
    );
  });
});
