import { describe, expect, it } from "vitest";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";

/** Coupons (docs/decisions.md, "Coupons"): created, archived, redeemed on contracts; amounts worked out by hand. */
const server = useTestServer();

const flat = (price: number) => [{ displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price } }];

const redeem = (account: BillingAccount, contractId: string, code: string) =>
  server.rest("POST", `/contracts/${contractId}/coupons`, { token: account.token, body: { code } });

describe("coupons", () => {
  it("are created once per code, listed, and refuse an AMOUNT without currency", async () => {
    const account = await billingAccount(server);
    const body = { code: "WELCOME20", discount: { type: "PERCENT", value: 20 }, duration: { cycles: 3 } };
    const { coupon } = await account.post("/coupons", body, 201);
    expect(coupon).toMatchObject({ ...body, archivedAt: null });
    expectError(await server.rest("POST", "/coupons", { token: account.token, body }), 409, "CONFLICT");
    const noCurrency = await server.rest("POST", "/coupons", {
      token: account.token,
      body: { code: "TENOFF", discount: { type: "AMOUNT", value: 10 }, duration: "ONCE" },
    });
    expectError(noCurrency, 400, "BAD_REQUEST");
    expect(noCurrency.body.issues).toEqual([{ path: "currency", message: "required with an AMOUNT discount" }]);
    const listed = (await server.rest("GET", "/coupons", { token: account.token })).body;
    expect(listed.coupons.map((each: any) => each.code)).toEqual(["WELCOME20"]);
  });

  it("maxRedemptions 5 redeemed by 20 concurrent calls: exactly 5", async () => {
    const account = await billingAccount(server);
    await account.post(
      "/coupons",
      { code: "FIRST5", discount: { type: "PERCENT", value: 50 }, maxRedemptions: 5, duration: "FOREVER" },
      201,
    );
    const contracts = [];
    for (let index = 0; index < 20; index += 1)
      contracts.push(await account.contract({ startDate: "2024-01-01T00:00:00Z", products: flat(10) }));
    const answers = await Promise.all(contracts.map((contract) => redeem(account, contract.id, "FIRST5")));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 409)).toHaveLength(15);
    for (const answer of answers.filter(({ status }) => status === 409)) {
      expect(answer.body.issues).toEqual([{ path: "code", message: "used up" }]);
    }
    // Another call later is refused too: the 5 slots are taken.
    expectError(await redeem(account, contracts[0].id, "FIRST5"), 409, "CONFLICT");
  });

  it("409: already applied, archived, expired, an AMOUNT in another currency; 404 for unknown ones", async () => {
    const account = await billingAccount(server);
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/coupons" }, 201);
    const contract = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: flat(10) });
    const create = (body: Record<string, unknown>) =>
      account.post("/coupons", { discount: { type: "PERCENT", value: 10 }, duration: "ONCE", ...body }, 201);
    await create({ code: "ONCE" });
    expect((await redeem(account, contract.id, "ONCE")).status).toBe(201);
    const again = await redeem(account, contract.id, "ONCE");
    expectError(again, 409, "CONFLICT");
    expect(again.body.issues).toEqual([{ path: "code", message: "already applied" }]);
    await create({ code: "GONE" });
    const archived = await server.rest("POST", "/coupons/GONE/archive", { token: account.token });
    expect(archived.body.coupon.archivedAt).toEqual(expect.any(String));
    expectError(await redeem(account, contract.id, "GONE"), 409, "CONFLICT");
    await create({ code: "OLD", redeemBy: "2024-01-01T00:00:00Z" });
    expectError(await redeem(account, contract.id, "OLD"), 409, "CONFLICT");
    await create({ code: "EUR5", discount: { type: "AMOUNT", value: 5 }, currency: "EUR" });
    expectError(await redeem(account, contract.id, "EUR5"), 409, "CONFLICT");
    expectError(await redeem(account, contract.id, "NOSUCH"), 404, "NOT_FOUND");
    expectError(await redeem(account, "0123456789abcdef01234567", "ONCE"), 404, "NOT_FOUND");
    expectError(await server.rest("POST", "/coupons/NOSUCH/archive", { token: account.token }), 404, "NOT_FOUND");
    // Archiving again changes nothing and announces nothing.
    expect((await server.rest("POST", "/coupons/GONE/archive", { token: account.token })).body).toEqual(archived.body);
    const deliveries = (
      await server.rest("GET", `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, { token: account.token })
    ).body.deliveries;
    const count = (type: string) => deliveries.filter((delivery: any) => delivery.eventType === type).length;
    // Created: ONCE, GONE, OLD, EUR5; archived: GONE once; redeemed: ONCE on the contract, the refusals none.
    expect([count("coupon.created"), count("coupon.archived"), count("coupon.redeemed")]).toEqual([4, 1, 1]);
  });

  it("a redeemed coupon discounts the contract's cycles not ended then, for its duration", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: "2027-01-15T00:00:00.000Z" } });
    const contract = await account.contract({ startDate: "2027-01-01T00:00:00Z", products: flat(100) });
    await account.post(
      "/coupons",
      { code: "TWO", discount: { type: "PERCENT", value: 10 }, duration: { cycles: 2 } },
      201,
    );
    const { redemption } = await account.post(`/contracts/${contract.id}/coupons`, { code: "TWO" }, 201);
    expect(redemption).toMatchObject({ code: "TWO", contractId: contract.id, redeemedAt: "2027-01-15T00:00:00.000Z" });
    for (;;) {
      const { status, body } = await server.rest("POST", "/test-clock/advance", {
        token: account.token,
        body: { to: "2027-04-01T00:00:00.000Z" },
      });
      expect(status, JSON.stringify(body)).toBe(200);
      if (!body.advance.hasMore) break;
    }
    const invoices = await account.invoices(contract.id);
    // January (not ended on Jan 15) and February: 100.00 − 10 % = 90.00; March 100.00.
    expect(invoices.map((invoice: any) => [invoice.revenueBreakdown.discount, invoice.amount])).toEqual([
      [10, 90],
      [10, 90],
      [0, 100],
    ]);
  });
});
