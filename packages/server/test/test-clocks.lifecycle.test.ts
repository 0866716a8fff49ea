import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount, day, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { FAST, type Receiver, startReceiver } from "./support/webhook-receiver.js";

/**
 * What time changes, on a test clock (issue 42; docs/decisions.md, "Test clocks"): renewals, expiries, scheduled
 * terminations, alert periods and entitlements follow the clock, never real time.
 */
const server = useTestServer({ webhooks: FAST });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const fee = { displayName: "Fee", scheduling: monthly(1), pricing: { type: "FLAT", price: 10 } };

const testAccount = (at: string, customer: Record<string, unknown> = {}) =>
  billingAccount(server, customer, { testClock: { at } });

async function advance(account: BillingAccount, to: string) {
  const { status, body } = await server.rest("POST", "/test-clock/advance", { token: account.token, body: { to } });
  expect([status, body.advance?.hasMore], JSON.stringify(body)).toEqual([200, false]);
  return body.advance;
}

const read = async (account: BillingAccount, contractId: string) =>
  (await server.rest("GET", `/contracts/${contractId}`, { token: account.token })).body.contract;
const history = async (account: BillingAccount, contractId: string) =>
  (await server.rest("GET", `/contracts/${contractId}/history`, { token: account.token })).body.history;

describe("contracts on the clock", () => {
  it("renews at its end: on a 2025 clock, a contract stored in real time after its end lives through it", async () => {
    const account = await testAccount("2025-01-01T00:00:00Z");
    const contract = await account.contract({
      startDate: day("2025-01-01"),
      endDate: day("2025-04-01"),
      autoRenewContract: true,
      products: [fee],
    });
    expect(contract.status).toBe("Active");
    await advance(account, "2025-04-02T00:00:00Z");
    // A quarter a term: renewed on Apr 1 to Jul 1.
    expect(await read(account, contract.id)).toMatchObject({
      status: "Active",
      renewals: 1,
      endDate: day("2025-07-01"),
    });
    expect(await history(account, contract.id)).toEqual([
      { at: day("2025-04-01"), kind: "renewal", endDate: day("2025-07-01"), by: "system" },
    ]);
    expect((await account.invoices(contract.id)).map((invoice) => invoice.finalizedAt)).toEqual([
      day("2025-02-01"),
      day("2025-03-01"),
      day("2025-04-01"),
    ]);
  });

  it("expires at its end, terminates when scheduled; a termination with no `at` is at the clock", async () => {
    const account = await testAccount("2027-01-10T00:00:00Z");
    const ending = await account.contract({
      startDate: day("2027-01-01"),
      endDate: day("2027-03-01"),
      autoRenewContract: false,
      products: [fee],
    });
    const scheduled = await account.contract({ startDate: day("2027-01-01"), products: [fee] });
    const now = await account.contract({ startDate: day("2027-01-01"), products: [fee] });
    const terminate = (contractId: string, body: Record<string, unknown>) =>
      account.post(`/contracts/${contractId}/terminate`, body);
    expect((await terminate(scheduled.id, { at: "2027-02-15T00:00:00Z" })).contract.status).toBe("PendingTermination");
    // Real time (2026) is before the contract's start: the clock's Jan 10 is what "now" means here.
    expect((await terminate(now.id, {})).contract).toMatchObject({
      status: "Terminated",
      terminationAt: "2027-01-10T00:00:00.000Z",
    });
    await advance(account, "2027-03-02T00:00:00Z");
    expect((await read(account, ending.id)).status).toBe("Expired");
    expect(await history(account, ending.id)).toEqual([
      { at: day("2027-03-01"), kind: "transition", from: "Active", to: "Expired", by: "system" },
    ]);
    expect((await read(account, scheduled.id)).status).toBe("Terminated");
    expect(await history(account, scheduled.id)).toEqual([
      expect.objectContaining({ at: "2027-01-10T00:00:00.000Z", from: "Active", to: "PendingTermination" }),
      { at: day("2027-02-15"), kind: "transition", from: "PendingTermination", to: "Terminated", by: "system" },
    ]);
  });
});

describe("usage on the clock", () => {
  it("alerts in the clock's period, crossed and stamped at the clock's time", async () => {
    const at = "2027-01-10T12:00:00.000Z";
    const account = await testAccount(at, { aliases: ["clocked"] });
    await account.post("/webhook-endpoints", { url: receiver.url, eventTypes: ["usage.threshold_crossed"] }, 201);
    await account.post("/meters", { key: "calls", eventName: "api_call", aggregation: "COUNT" }, 201);
    await account.post(
      "/alerts",
      { customerId: account.customerId, meterKey: "calls", thresholds: [2], period: "DAY" },
      201,
    );
    const events = ["a", "b"].map((ref) => ({ ref, name: "api_call", timestamp: at, customerAlias: "clocked" }));
    await account.post("/events", { events });
    const ours = () =>
      receiver.received
        .map((request) => JSON.parse(request.body))
        .filter((body) => body.data.customerId === account.customerId);
    await receiver.waitFor(() => ours().length === 1);
    expect(ours()).toEqual([
      {
        type: "usage.threshold_crossed",
        timestamp: at,
        data: expect.objectContaining({
          threshold: 2,
          value: 2,
          periodStart: day("2027-01-10"),
          periodEnd: day("2027-01-11"),
          crossedAt: at,
        }),
      },
    ]);
  });

  it("entitlements count the clock's cycle, and a new cycle once the clock is in it", async () => {
    const account = await testAccount("2027-01-10T00:00:00Z", { aliases: ["entitled"] });
    await account.post("/meters", { key: "calls", eventName: "api_call", aggregation: "COUNT" }, 201);
    const commitment = { units: 5, price: 1, limitStrategy: "BLOCK" };
    await account.contract({
      startDate: day("2027-01-01"),
      products: [{ displayName: "API", catalogProductId: "calls", scheduling: monthly(1), commitment }],
    });
    const events = ["a", "b", "c"].map((ref) => ({
      ref,
      name: "api_call",
      timestamp: "2027-01-09T00:00:00Z",
      customerAlias: "entitled",
    }));
    await account.post("/events", { events });
    const entitlement = async () =>
      (await server.rest("GET", `/customers/${account.customerId}/entitlements/calls`, { token: account.token })).body
        .entitlement;
    // 3 of 5 used in January (real time, in 2026, is in no cycle of this contract).
    expect(await entitlement()).toMatchObject({
      hasAccess: true,
      usage: 3,
      limit: 5,
      remaining: 2,
      periodStart: day("2027-01-01"),
      periodEnd: day("2027-02-01"),
    });
    await advance(account, "2027-02-02T00:00:00Z");
    expect(await entitlement()).toMatchObject({ usage: 0, remaining: 5, periodStart: day("2027-02-01") });
  });
});
