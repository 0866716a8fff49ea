import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed } from "./support/billing.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** Which grants pay an invoice, in which order (docs/decisions.md, "Credit ledger" → Burn order). */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const DAY_MS = 86_400_000;
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();
const rows = (entries: any[]) => entries.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry]);

describe("GET /credits/balance", () => {
  it(
    "lists the grants with money left in burn order: priority, then the earliest expiry (none last), then the " +
      "oldest",
    async () => {
      const account = await billingAccount(server);
      const inOneDay = fromNow(DAY_MS);
      const inTwoDays = fromNow(2 * DAY_MS);
      const a = (await account.grant(100)).entry;
      const b = (await account.grant(50, account.customerId, { priority: 10 })).entry;
      const c = (await account.grant(30, account.customerId, { expiresAt: inTwoDays })).entry;
      const d = (await account.grant(20, account.customerId, { expiresAt: inOneDay })).entry;
      const e = (await account.grant(10, account.customerId, { priority: 50 })).entry;
      expect(c).toMatchObject({
        type: "Grant",
        grantId: c.id,
        priority: 50,
        expiresAt: inTwoDays,
        effectiveAt: "1970-01-01T00:00:00.000Z",
      });

      const { status, body } = await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, {
        token: account.token,
      });
      expect(status).toBe(200);
      // 100 + 50 + 30 + 20 + 10 = 210
      expect(body.balance).toBe(210);
      expect(body.grants.map((grant: any) => grant.grantId)).toEqual([b.id, d.id, c.id, a.id, e.id]);
      expect(body.grants[1]).toEqual({
        grantId: d.id,
        amount: 20,
        remaining: 20,
        effectiveAt: "1970-01-01T00:00:00.000Z",
        expiresAt: inOneDay,
        priority: 50,
        currency: "USD",
      });
      expect(body.grants[3]).toEqual({
        grantId: a.id,
        amount: 100,
        remaining: 100,
        effectiveAt: "1970-01-01T00:00:00.000Z",
        priority: 50,
        currency: "USD",
      });
    },
  );

  it("is 0 with no grants for a customer without credits, and 404 for another account's customer", async () => {
    const account = await billingAccount(server);
    expect(
      (await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, { token: account.token })).body,
    ).toEqual({ balance: 0, currency: "USD", balances: [{ currency: "USD", balance: 0 }], grants: [] });
    const other = await billingAccount(server);
    expectError(
      await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, { token: other.token }),
      404,
      "NOT_FOUND",
    );
    expectError(await server.rest("GET", "/credits/balance", { token: account.token }), 400, "BAD_REQUEST");
  });
});

describe("priority", () => {
  it.each([[-1], [101], [2.5], ["5"], [null]])("%s is 400 naming priority, nothing written", async (priority) => {
    const account = await billingAccount(server);
    const response = await server.rest("POST", "/credits", {
      token: account.token,
      body: { customerId: account.customerId, amount: 1, type: "Grant", priority },
    });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["priority"]);
    expect(await account.ledger()).toEqual([]);
  });

  it("takes 0 and 100; 50 when absent", async () => {
    const account = await billingAccount(server);
    expect((await account.grant(1, account.customerId, { priority: 0 })).entry.priority).toBe(0);
    expect((await account.grant(1, account.customerId, { priority: 100 })).entry.priority).toBe(100);
    expect((await account.grant(1)).entry.priority).toBe(50);
  });
});

describe("credits paying an invoice", () => {
  /** 10 × 99.99 = 999.90 per monthly cycle, from Jan 1, 2024. */
  const seats = { startDate: "2024-01-01T00:00:00Z", products: [committed(10, 99.99)] };

  it("burn the grants in order, one Usage entry per grant, each naming its grant and the invoice", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract(seats);
    const a = (await account.grant(1000)).entry;
    const b = (await account.grant(50, account.customerId, { priority: 10 })).entry;
    const c = (await account.grant(300, account.customerId, { expiresAt: "2099-01-01T00:00:00Z" })).entry;
    await account.run("2024-02-01T00:00:00Z");

    const [invoice] = await account.invoices(contract.id);
    expect(invoice.revenueBreakdown).toMatchObject({ subtotal: 999.9, creditsUsed: 999.9, total: 0 });
    const ledger = await account.ledger();
    // 1000 + 50 + 300 = 1350; B (priority 10) gives 50, C (expires) 300, A the rest: 999.90 − 350 = 649.90.
    expect(rows(ledger)).toEqual([
      ["Grant", 1000, 1000],
      ["Grant", 50, 1050],
      ["Grant", 300, 1350],
      ["Usage", -50, 1300],
      ["Usage", -300, 1000],
      ["Usage", -649.9, 350.1],
    ]);
    expect(ledger.slice(3).map((entry) => [entry.grantId, entry.invoiceId, entry.contractId])).toEqual([
      [b.id, invoice.id, contract.id],
      [c.id, invoice.id, contract.id],
      [a.id, invoice.id, contract.id],
    ]);
    const balance = (
      await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, { token: account.token })
    ).body;
    expect(balance).toEqual({
      balance: 350.1,
      currency: "USD",
      balances: [{ currency: "USD", balance: 350.1 }],
      grants: [
        { grantId: a.id, amount: 1000, remaining: 350.1, effectiveAt: a.effectiveAt, priority: 50, currency: "USD" },
      ],
    });
  });

  it("use only grants effective when the invoice was issued; a preview follows the same rule", async () => {
    const account = await billingAccount(server);
    // 10 × 10 = 100 a month; arrears invoices are issued at the cycle's end: Feb 1, Mar 1, Apr 1.
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(10, 10)] });
    const g1 = (await account.grant(150, account.customerId, { effectiveAt: "2024-02-15T00:00:00Z" })).entry;
    const g2 = (
      await server.rest("POST", "/credits", {
        token: account.token,
        body: { customerId: account.customerId, amount: 1000, type: "Grant", effectiveAt: fromNow(DAY_MS) },
      })
    ).body.entry;
    // Without effectiveAt, a grant is effective from now: it pays no invoice issued before.
    const g3 = (
      await server.rest("POST", "/credits", {
        token: account.token,
        body: { customerId: account.customerId, amount: 7, type: "Grant" },
      })
    ).body.entry;
    expect(Date.parse(g3.effectiveAt)).toBeLessThanOrEqual(Date.parse(g3.createdAt));

    const preview = async (at: string) =>
      (await account.preview({ contractId: contract.id, at })).body.invoice.revenueBreakdown;
    expect(await preview("2024-01-15T00:00:00Z")).toMatchObject({ subtotal: 100, creditsUsed: 0, total: 100 });
    expect(await preview("2024-02-15T00:00:00Z")).toMatchObject({ subtotal: 100, creditsUsed: 100, total: 0 });

    await account.run("2024-04-01T00:00:00Z");
    const invoices = await account.invoices(contract.id);
    // January (issued Feb 1): g1 not yet effective. February: 100 of g1. March: its last 50, 50 due.
    expect(invoices.map((invoice) => [invoice.revenueBreakdown.creditsUsed, invoice.amount])).toEqual([
      [0, 100],
      [100, 0],
      [50, 50],
    ]);
    const ledger = await account.ledger();
    // 150 + 1000 + 7 = 1157; − 100 − 50 = 1007, all of it in g2 and g3.
    expect(rows(ledger.slice(3))).toEqual([
      ["Usage", -100, 1057],
      ["Usage", -50, 1007],
    ]);
    expect(ledger.slice(3).map((entry) => entry.grantId)).toEqual([g1.id, g1.id]);
    const balance = (
      await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, { token: account.token })
    ).body;
    expect(balance.grants.map((grant: any) => [grant.grantId, grant.remaining])).toEqual([
      [g2.id, 1000],
      [g3.id, 7],
    ]);
  });

  it("are the same over tRPC: a grant with its terms, the balance in burn order", async () => {
    const account = await billingAccount(server);
    const client = account.trpc();
    const low = await client.credits.grant.mutate({
      customerId: account.customerId,
      amount: 2.5,
      type: "Grant",
      priority: 1,
      effectiveAt: "2024-01-01T00:00:00+01:00",
    });
    const high = await client.credits.grant.mutate({
      customerId: account.customerId,
      amount: 4,
      type: "Grant",
      priority: 2,
    });
    expect(low.entry).toMatchObject({ grantId: low.entry.id, priority: 1, effectiveAt: "2023-12-31T23:00:00.000Z" });
    expect(await client.credits.balance.query({ customerId: account.customerId })).toEqual({
      balance: 6.5,
      currency: "USD",
      balances: [{ currency: "USD", balance: 6.5 }],
      grants: [
        {
          grantId: low.entry.id,
          amount: 2.5,
          remaining: 2.5,
          effectiveAt: "2023-12-31T23:00:00.000Z",
          priority: 1,
          currency: "USD",
        },
        {
          grantId: high.entry.id,
          amount: 4,
          remaining: 4,
          effectiveAt: high.entry.effectiveAt,
          priority: 2,
          currency: "USD",
        },
      ],
    });
  });
});

describe("the OpenAPI document", () => {
  it("documents the grant terms, the balance and the void, from the schemas", async () => {
    const { body } = await server.rest("GET", "/openapi.json");
    const grant = body.paths["/credits"].post.requestBody.content["application/json"].schema.properties;
    expect(grant.priority).toMatchObject({ type: "integer", minimum: 0, maximum: 100 });
    expect(grant.expiresAt).toMatchObject({ type: "string", format: "date-time" });
    expect(body.components.schemas.CreditLedgerEntry.properties.type.enum).toEqual([
      "Grant",
      "Usage",
      "Expiration",
      "Void",
      "Reversal",
    ]);
    expect(body.paths["/credits/balance"].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      "customerId",
    ]);
    const voidResponses = body.paths["/credits/{entryId}/void"].post.responses;
    expect(voidResponses["201"].content["application/json"].schema).toMatchObject({
      properties: { entry: { $ref: "#/components/schemas/CreditLedgerEntry" } },
    });
    expect(voidResponses["409"].content["application/json"]).toMatchObject({
      schema: { $ref: "#/components/schemas/Error" },
      example: { code: "CONFLICT" },
    });
  });
});
