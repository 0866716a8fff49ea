import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useAccount, useTestServer } from "./support/harness.js";

const server = useTestServer();
const account = useAccount(server);

async function newCustomer(ownToken = account.token): Promise<string> {
  const { status, body } = await server.rest("POST", "/customers", {
    token: ownToken,
    body: { name: `c-${randomBytes(4).toString("hex")}` },
  });
  expect(status).toBe(201);
  return body.customer.id;
}

const grant = (customerId: string, amount: number, extra: Record<string, unknown> = {}) =>
  server.rest("POST", "/credits", { token: account.token, body: { customerId, amount, type: "Grant", ...extra } });

const balanceMicros = async (customerId: string) =>
  (await server.service.repositories.credits.balance(account.accountId, customerId)).balanceMicros;

const listAll = async (customerId: string) =>
  (await server.rest("GET", `/credits?customerId=${customerId}&limit=1000`, { token: account.token })).body.entries;

describe("granting credits over REST", () => {
  it("returns 201 with the entry; references are stored as given", async () => {
    const customerId = await newCustomer();
    const { status, body } = await grant(customerId, 25.5, {
      contractId: "contract-not-checked",
      invoiceId: "inv-1",
      erpId: "erp-9",
    });
    expect(status).toBe(201);
    expect(body).toEqual({
      entry: {
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        customerId,
        createdAt: expect.any(String),
        type: "Grant",
        amount: 25.5,
        currency: "USD",
        balanceAfterEntry: 25.5,
        integrationEntities: [],
        contractId: "contract-not-checked",
        invoiceId: "inv-1",
        erpId: "erp-9",
        grantId: body.entry.id,
        effectiveAt: expect.any(String),
        priority: 50,
      },
    });
    expect(new Date(body.entry.createdAt).toISOString()).toBe(body.entry.createdAt);
    // Effective from when it was granted, by default.
    expect(Date.parse(body.entry.effectiveAt)).toBeLessThanOrEqual(Date.parse(body.entry.createdAt));
    expect(await listAll(customerId)).toEqual([body.entry]);
  });

  it("keeps balances exact: 0.1 + 0.2 = 0.3, and 6-decimal amounts add up to the micro-dollar", async () => {
    const customerId = await newCustomer();
    expect((await grant(customerId, 0.1)).body.entry.balanceAfterEntry).toBe(0.1);
    expect((await grant(customerId, 0.2)).body.entry.balanceAfterEntry).toBe(0.3);
    expect((await grant(customerId, 0.000001)).body.entry.balanceAfterEntry).toBe(0.300001);
    expect((await grant(customerId, 123456.789999)).body.entry.balanceAfterEntry).toBe(123457.09);
    expect((await grant(customerId, 999876542.91)).body.entry.balanceAfterEntry).toBe(1e9);
    expect(await balanceMicros(customerId)).toBe(1e15);
    const entries = await listAll(customerId);
    expect(entries.map((entry: { amount: number }) => entry.amount)).toEqual([
      0.1, 0.2, 0.000001, 123456.789999, 999876542.91,
    ]);
  });

  it("keeps one ledger per customer", async () => {
    const [first, second] = [await newCustomer(), await newCustomer()];
    await grant(first, 1);
    await grant(second, 2);
    expect((await grant(first, 3)).body.entry.balanceAfterEntry).toBe(4);
    expect((await listAll(second)).map((entry: { amount: number }) => entry.amount)).toEqual([2]);
  });

  it("treats an upper-case customer id as the same customer and ledger", async () => {
    const customerId = await newCustomer();
    await grant(customerId.toUpperCase(), 1);
    const { body } = await grant(customerId, 2);
    expect(body.entry).toMatchObject({ customerId, balanceAfterEntry: 3 });
    expect(await listAll(customerId.toUpperCase())).toHaveLength(2);
  });

  it("names the customer by its externalId as well: one ledger, kept under the customer's id", async () => {
    const externalId = `crm-${randomBytes(4).toString("hex")}`;
    const { body } = await server.rest("POST", "/customers", {
      token: account.token,
      body: { name: externalId, externalId },
    });
    const customerId = body.customer.id;
    expect((await grant(externalId, 1.5)).body.entry).toMatchObject({ customerId, balanceAfterEntry: 1.5 });
    expect((await grant(customerId, 2)).body.entry).toMatchObject({ customerId, balanceAfterEntry: 3.5 });
    expect(await listAll(externalId)).toHaveLength(2);
    const balance = await server.rest("GET", `/credits/balance?customerId=${externalId}`, { token: account.token });
    expect(balance.body.balance).toBe(3.5);
  });
});

describe("listing the ledger", () => {
  it("returns only `entries`, 10 by default, in ledger order", async () => {
    const customerId = await newCustomer();
    for (let i = 1; i <= 12; i += 1) await grant(customerId, i);
    const { status, body } = await server.rest("GET", `/credits?customerId=${customerId}`, { token: account.token });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["entries"]);
    expect(body.entries.map((entry: { amount: number }) => entry.amount)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("is empty for a customer without entries", async () => {
    const { status, body } = await server.rest("GET", `/credits?customerId=${await newCustomer()}`, {
      token: account.token,
    });
    expect({ status, body }).toEqual({ status: 200, body: { entries: [] } });
  });

  it.each([
    [23, 5],
    [20, 5],
    [3, 1],
  ])(
    "walks %i entries by pages of %i with the id of the last entry as cursor, each entry once",
    async (count, limit) => {
      const customerId = await newCustomer();
      const granted: string[] = [];
      for (let i = 1; i <= count; i += 1) granted.push((await grant(customerId, i)).body.entry.id);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const query = new URLSearchParams({ customerId, limit: String(limit), ...(cursor && { cursor }) });
        const { status, body } = await server.rest("GET", `/credits?${query}`, { token: account.token });
        expect(status).toBe(200);
        pages += 1;
        seen.push(...body.entries.map((entry: { id: string }) => entry.id));
        if (body.entries.length < limit) break;
        cursor = body.entries.at(-1).id;
      }
      expect(seen).toEqual(granted);
      expect(pages).toBe(Math.floor(count / limit) + 1);
    },
  );
});

describe("concurrency", () => {
  it("50 concurrent grants make 50 entries, seq 1..50, each balance once and in ledger order", async () => {
    const customerId = await newCustomer();
    const amounts = Array.from({ length: 50 }, (_, i) => Number(`${i + 1}.${String(i + 1).padStart(6, "0")}`));
    const responses = await Promise.all(amounts.map((amount) => grant(customerId, amount)));
    expect(responses.map((response) => response.status)).toEqual(amounts.map(() => 201));

    const entries = await listAll(customerId);
    expect(entries).toHaveLength(50);
    expect(new Set(entries.map((entry: { id: string }) => entry.id))).toEqual(
      new Set(responses.map((r) => r.body.entry.id)),
    );
    const balances = entries.map((entry: { balanceAfterEntry: number }) => entry.balanceAfterEntry);
    expect(new Set(balances).size).toBe(50);
    let runningMicros = 0;
    for (const entry of entries) {
      runningMicros += Math.round(entry.amount * 1e6);
      expect(Math.round(entry.balanceAfterEntry * 1e6)).toBe(runningMicros);
    }
    const sumMicros = amounts.reduce((sum, amount) => sum + Math.round(amount * 1e6), 0);
    expect(Math.round(entries.at(-1).balanceAfterEntry * 1e6)).toBe(sumMicros);
    expect(await balanceMicros(customerId)).toBe(sumMicros);

    const stored = await server.service.db.collection("credit_entries").find({ customerId }).sort({ seq: 1 }).toArray();
    expect(stored.map((doc) => doc.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(stored.map((doc) => doc._id.toHexString())).toEqual(entries.map((entry: { id: string }) => entry.id));
  });
});

describe("credits over tRPC", () => {
  it("grants and lists through the same procedures", async () => {
    const client = server.trpc(account.token);
    const customerId = await newCustomer();
    const first = await client.credits.grant.mutate({ customerId, amount: 0.7, type: "Grant" });
    const second = await client.credits.grant.mutate({ customerId, amount: 0.2, type: "Grant", contractId: "ct" });
    expect(second.entry).toMatchObject({ type: "Grant", amount: 0.2, balanceAfterEntry: 0.9, contractId: "ct" });
    const page = await client.credits.list.query({ customerId, limit: 1 });
    expect(page).toEqual({ entries: [first.entry] });
    const next = await client.credits.list.query({ customerId, cursor: first.entry.id });
    expect(next.entries).toEqual([second.entry]);
  });

  it("is documented in the OpenAPI document", async () => {
    const { body } = await server.rest("GET", "/openapi.json");
    expect(body.paths["/credits"].post.responses["201"].content["application/json"].schema).toMatchObject({
      properties: { entry: { $ref: "#/components/schemas/CreditLedgerEntry" } },
      required: ["entry"],
    });
    expect(body.paths["/credits"].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual([
      "customerId",
      "limit",
      "cursor",
    ]);
  });
});
