import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount, committed } from "./support/billing.js";
import { startTestServer, startTwinService, type TestServer } from "./support/server.js";

/**
 * Grants that expire (docs/decisions.md, "Credit ledger" → Expiry). Expiries are real instants a second or so ahead.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();
const sleepPast = (instant: string) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(instant) - Date.now()) + 20));
const rows = (entries: any[]) => entries.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry]);
const balanceOf = async (account: BillingAccount) =>
  (await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, { token: account.token })).body;
/** The customer's entries as stored, read around the service (a list through it would write due expirations first). */
const stored = (account: BillingAccount) =>
  server.service.db.collection("credit_entries").find({ customerId: account.customerId }).sort({ seq: 1 }).toArray();

describe("expiresAt and effectiveAt: 400 naming the field, nothing written", () => {
  it.each([
    ["in the past", { expiresAt: "2024-01-01T00:00:00Z" }, "expiresAt"],
    ["now or a moment ago", { expiresAt: fromNow(-1) }, "expiresAt"],
    ["not after effectiveAt", { expiresAt: "2098-01-01T00:00:00Z", effectiveAt: "2098-01-01T00:00:00Z" }, "expiresAt"],
    ["beyond 2099", { expiresAt: "2100-01-01T00:00:00Z" }, "expiresAt"],
    ["not a timestamp", { expiresAt: "tomorrow" }, "expiresAt"],
    ["a date without time", { effectiveAt: "2024-01-01" }, "effectiveAt"],
    ["a number", { effectiveAt: 1_700_000_000 }, "effectiveAt"],
  ])("expiresAt or effectiveAt %s", async (_, terms, path) => {
    const account = await billingAccount(server);
    const response = await server.rest("POST", "/credits", {
      token: account.token,
      body: { customerId: account.customerId, amount: 5, type: "Grant", ...terms },
    });
    expectError(response, 400, "BAD_REQUEST");
    expect(response.body.issues.map((issue: { path: string }) => issue.path)).toEqual([path]);
    expect(await stored(account)).toEqual([]);
    expect(
      await server.service.db.collection("credit_expiries").countDocuments({ customerId: account.customerId }),
    ).toBe(0);
  });
});

describe("an Expiration entry removes exactly what was left, once, at or after the expiry", () => {
  it("after part of the grant paid an invoice: 10 − 3.33 = 6.67 expires, the other grant stays", async () => {
    const account = await billingAccount(server);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 3.33)] });
    // Far enough for the run below to pay from the grant first on a loaded machine (1.5 s was not, at times).
    const expiresAt = fromNow(4000);
    const expiring = (await account.grant(10, account.customerId, { expiresAt })).entry;
    const lasting = (await account.grant(5, account.customerId, { priority: 60 })).entry;
    await account.run("2024-02-01T00:00:00Z");
    expect((await account.invoices(contract.id))[0].revenueBreakdown).toMatchObject({ creditsUsed: 3.33, total: 0 });
    expect((await balanceOf(account)).grants.map((grant: any) => [grant.grantId, grant.remaining])).toEqual([
      [expiring.id, 6.67],
      [lasting.id, 5],
    ]);

    await sleepPast(expiresAt);
    expect(await balanceOf(account)).toEqual({
      balance: 5,
      currency: "USD",
      balances: [{ currency: "USD", balance: 5 }],
      grants: [
        {
          grantId: lasting.id,
          amount: 5,
          remaining: 5,
          effectiveAt: lasting.effectiveAt,
          priority: 60,
          currency: "USD",
        },
      ],
    });
    expect(await balanceOf(account)).toMatchObject({ balance: 5 });
    const ledger = await account.ledger();
    expect(rows(ledger)).toEqual([
      ["Grant", 10, 10],
      ["Grant", 5, 15],
      ["Usage", -3.33, 11.67],
      ["Expiration", -6.67, 5],
    ]);
    expect(ledger[3].grantId).toBe(expiring.id);
    expect(Date.parse(ledger[3].createdAt)).toBeGreaterThanOrEqual(Date.parse(expiresAt));
  });

  it(
    "is written before a later payment reads the balance: the expired grant pays nothing, even for an invoice " +
      "issued before its expiry",
    async () => {
      const account = await billingAccount(server);
      const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 40)] });
      const expiresAt = fromNow(1000);
      await account.grant(100, account.customerId, { expiresAt });
      await sleepPast(expiresAt);
      // January's invoice was issued on Feb 1, 2024, long before the expiry; the run comes after it.
      await account.run("2024-02-01T00:00:00Z");
      expect((await account.invoices(contract.id))[0].revenueBreakdown).toMatchObject({ creditsUsed: 0, total: 40 });
      expect(rows(await account.ledger())).toEqual([
        ["Grant", 100, 100],
        ["Expiration", -100, 0],
      ]);
    },
  );

  it(
    "is written by billing runs for customers nothing else touches; a grant voided before has nothing left to " +
      "expire",
    async () => {
      const account = await billingAccount(server);
      const idle = await account.newCustomer({ name: "Idle Co" });
      const expiresAt = fromNow(1000);
      await account.grant(12.5, idle, { expiresAt });
      const voided = (await account.grant(3, account.customerId, { expiresAt })).entry;
      expect((await server.rest("POST", `/credits/${voided.id}/void`, { token: account.token })).status).toBe(201);
      const expiries = server.service.db.collection("credit_expiries");
      expect(await expiries.countDocuments({ accountId: account.accountId })).toBe(2);
      await sleepPast(expiresAt);
      expect(
        (await server.service.db.collection("credit_entries").find({ customerId: idle }).toArray()).map(
          (doc) => doc.type,
        ),
      ).toEqual(["Grant"]);

      const run = await account.run(new Date().toISOString());
      expect(run).toMatchObject({ invoicesCreated: 0, hasMore: false });
      const idleEntries = await server.service.db
        .collection("credit_entries")
        .find({ customerId: idle })
        .sort({ seq: 1 })
        .toArray();
      expect(idleEntries.map((doc) => [doc.type, doc.amountMicros, doc.balanceAfterMicros])).toEqual([
        ["Grant", 12_500_000, 12_500_000],
        ["Expiration", -12_500_000, 0],
      ]);
      expect((await stored(account)).map((doc) => doc.type)).toEqual(["Grant", "Void"]);
      expect(await expiries.countDocuments({ accountId: account.accountId })).toBe(0);
    },
  );

  it("once, however many readers and writers see it at the same time, on two instances of the service", async () => {
    const account = await billingAccount(server);
    const twin = await startTwinService(server);
    try {
      for (let round = 0; round < 5; round += 1) {
        const customerId = await account.newCustomer({ name: `Round ${round}` });
        const expiresAt = fromNow(600);
        const grant = (await account.grant(7.77, customerId, { expiresAt })).entry;
        await account.grant(1, customerId);
        await sleepPast(expiresAt);
        const on = (url: string, path: string, method = "GET") =>
          fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${account.token}` } }).then(
            (response) => response.status,
          );
        const statuses = await Promise.all(
          [server.url, twin.url].flatMap((url) => [
            on(url, `/credits/balance?customerId=${customerId}`),
            on(url, `/credits?customerId=${customerId}`),
            on(url, `/credits/balance?customerId=${customerId}`),
            on(url, `/credits/${grant.id}/void`, "POST"),
            on(url, "/billing-runs", "POST"),
          ]),
        );
        // Voids come after the due expiration, which leaves nothing to void.
        expect(statuses.sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 409, 409]);
        const ledger = await account.ledger(customerId);
        expect(rows(ledger)).toEqual([
          ["Grant", 7.77, 7.77],
          ["Grant", 1, 8.77],
          ["Expiration", -7.77, 1],
        ]);
      }
    } finally {
      await twin.close();
    }
  });

  it("cannot be voided once expired: 409", async () => {
    const account = await billingAccount(server);
    const expiresAt = fromNow(500);
    const grant = (await account.grant(2, account.customerId, { expiresAt })).entry;
    await sleepPast(expiresAt);
    expectError(await server.rest("POST", `/credits/${grant.id}/void`, { token: account.token }), 409, "CONFLICT");
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 2, 2],
      ["Expiration", -2, 0],
    ]);
  });
});
