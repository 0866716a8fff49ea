import { ObjectId } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../src/app.js";
import { addMonths } from "../src/domain/credit-recurrence.js";
import { sweepChanges } from "../src/services/webhook-sweep.js";
import { type BillingAccount, billingAccount, everyMonths, monthly } from "./support/billing.js";
import { startTestServer, startTwinService, type TestServer } from "./support/server.js";

/**
 * Recurring credits and rollover (issue 44; docs/decisions.md, "Recurring credits and rollover"): one grant per
 * period, issued once by whatever reaches the period first, the previous period's remainder expiring but up to
 * `rollover.maxAmount`, which carries into a grant of the new period. Two instances share the database; the twin's
 * background issuer runs every 100 ms, neither runs the billing scheduler.
 */
let server: TestServer;
let twin: RunningService;
beforeAll(async () => {
  server = await startTestServer();
  twin = await startTwinService(server, { creditIssuer: { intervalMs: 100 } });
});
afterAll(async () => {
  await twin.close();
  await server.close();
});

// 2027: after the real clock of any run of these tests (see test-clocks.test.ts).
const at = (day: string) => `2027-${day}T00:00:00.000Z`;

async function advanceTo(account: BillingAccount, to: string) {
  for (;;) {
    const { status, body } = await server.rest("POST", "/test-clock/advance", { token: account.token, body: { to } });
    expect(status, JSON.stringify(body)).toBe(200);
    if (!body.advance.hasMore) return;
  }
}

/** A one-cycle contract paid in advance on the 10th: its invoice, issued at its start, asks `price` of the credits. */
const prepaidMonth = (start: string, end: string, price: number) => ({
  startDate: start,
  endDate: end,
  autoRenewContract: false,
  products: [
    { displayName: "Fee", scheduling: monthly(10), pricing: { type: "FLAT", price }, paymentTerm: "Prepayment" },
  ],
});

const rows = (ledger: any[]) =>
  ledger.map((entry) => [entry.type, entry.amount, entry.balanceAfterEntry, entry.period ?? null, !!entry.rollover]);

describe("500 credits a month, rollover up to 200, usage 350, 600 and 100", () => {
  it("issues, burns, expires and rolls over as computed by hand, in one call", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("01-01") } });
    const first = (
      await account.post(
        "/credits",
        {
          customerId: account.customerId,
          amount: 500,
          type: "Grant",
          recurrence: { every: { unit: "MONTH", value: 1 }, rollover: { maxAmount: 200 } },
        },
        201,
      )
    ).entry;
    expect(first).toMatchObject({ type: "Grant", amount: 500, period: 1, expiresAt: at("02-01") });
    await account.contract(prepaidMonth(at("01-10"), at("02-10"), 350));
    await account.contract(prepaidMonth(at("02-10"), at("03-10"), 600));
    await account.contract(prepaidMonth(at("03-10"), at("04-10"), 100));
    await advanceTo(account, at("04-02"));

    // Burn order (docs/decisions.md): same priority, same expiry (the period's end), so the older grant first: a
    // period's rollover is written before its own grant, so what was carried over burns first.
    // Jan:  grant 500; the Jan 10 invoice uses 350 → 150 left.
    // Feb 1: the 150 left expire (balance 0), 150 ≤ 200 roll over; grant 500 → 650.
    //        The Feb 10 invoice uses 600: the rollover's 150, then 450 of the grant → 50 left.
    // Mar 1: the 50 left expire, 50 roll over; grant 500 → 550.
    //        The Mar 10 invoice uses 100: the rollover's 50, then 50 of the grant → 450 left.
    // Apr 1: the 450 left expire, 200 (the maximum) roll over; grant 500 → 700.
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 500, 500, 1, false],
      ["Usage", -350, 150, null, false],
      ["Expiration", -150, 0, null, false],
      ["Grant", 150, 150, 2, true],
      ["Grant", 500, 650, 2, false],
      ["Usage", -150, 500, null, false],
      ["Usage", -450, 50, null, false],
      ["Expiration", -50, 0, null, false],
      ["Grant", 50, 50, 3, true],
      ["Grant", 500, 550, 3, false],
      ["Usage", -50, 500, null, false],
      ["Usage", -50, 450, null, false],
      ["Expiration", -450, 0, null, false],
      ["Grant", 200, 200, 4, true],
      ["Grant", 500, 700, 4, false],
    ]);
    const { body: balance } = await server.rest("GET", `/credits/balance?customerId=${account.customerId}`, {
      token: account.token,
    });
    expect(balance.balance).toBe(700);
    // Both April grants expire with April: the rollover first in burn order.
    expect(balance.grants.map((grant: any) => [grant.remaining, grant.expiresAt])).toEqual([
      [200, at("05-01")],
      [500, at("05-01")],
    ]);
    const invoices = await account.allInvoices();
    expect(invoices.map((invoice) => invoice.revenueBreakdown.creditsUsed).sort((a, b) => a - b)).toEqual([
      100, 350, 600,
    ]);
  });
});

describe("each period issued once, on two instances at once", () => {
  it("reads, lists and billing runs on both instances racing for a new period write it once", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("01-01") } });
    const grant = {
      customerId: account.customerId,
      amount: 40,
      type: "Grant",
      recurrence: { every: { unit: "MONTH", value: 1 }, count: 2, rollover: { maxAmount: 15 } },
    };
    await account.post("/credits", grant, 201);
    // The clock moves to Feb 1 without the advance's work: what reaches period 2 first is one of the racing calls.
    await server.service.db
      .collection("accounts")
      .updateOne({ _id: new ObjectId(account.accountId) }, { $set: { "testClock.at": new Date(at("02-01")) } });
    const urls = [server.url, twin.url];
    const paths = [`/credits/balance?customerId=${account.customerId}`, `/credits?customerId=${account.customerId}`];
    const calls = Array.from({ length: 12 }, (_, index) =>
      fetch(`${urls[index % 2]}${paths[Math.floor(index / 2) % 2]}`, {
        headers: { authorization: `Bearer ${account.token}` },
      }).then((response) => response.status),
    );
    const runs = urls.map((url) =>
      fetch(`${url}/billing-runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
        body: JSON.stringify({ at: at("02-01") }),
      }).then((response) => response.status),
    );
    expect(await Promise.all([...calls, ...runs])).toEqual([...calls.map(() => 200), 200, 200]);
    // 40 granted, nothing used: on Feb 1 the 40 expire, 15 roll over, and period 2 (the last) grants 40.
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 40, 40, 1, false],
      ["Expiration", -40, 0, null, false],
      ["Grant", 15, 15, 2, true],
      ["Grant", 40, 55, 2, false],
    ]);
    // count: 2 — no third period: on Mar 1 both expire and nothing rolls or is granted.
    await advanceTo(account, at("03-02"));
    expect(rows(await account.ledger()).slice(4)).toEqual([
      ["Expiration", -15, 40, null, false],
      ["Expiration", -40, 0, null, false],
    ]);
  });
});

describe("a contract's creditGrants", () => {
  it("monthly credits on an annual plan: one contract call, one grant a month, stopped by an update", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("01-01") } });
    const contract = await account.contract({
      startDate: at("01-01"),
      products: [{ displayName: "Platform", scheduling: everyMonths(12, 1), pricing: { type: "FLAT", price: 1200 } }],
      creditGrants: [{ amount: 100, recurrence: { every: { unit: "MONTH", value: 1 } }, priority: 10 }],
    });
    expect(contract.creditGrants).toEqual([
      { amount: 100, recurrence: { every: { unit: "MONTH", value: 1 } }, priority: 10 },
    ]);
    await advanceTo(account, at("03-15"));
    // Jan, Feb, Mar: 100 each, each expiring at the next month's start (no rollover): 100 left on Mar 15.
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 100, 100, 1, false],
      ["Expiration", -100, 0, null, false],
      ["Grant", 100, 100, 2, false],
      ["Expiration", -100, 0, null, false],
      ["Grant", 100, 100, 3, false],
    ]);
    const entries = await account.ledger();
    expect(entries[0]).toMatchObject({ contractId: contract.id, recurringGrantId: `${contract.id}/0`, priority: 10 });
    // `[]` stops them after the period started (March's stays, April's is never issued).
    const update = await server.rest("PATCH", `/contracts/${contract.id}`, {
      token: account.token,
      body: { creditGrants: [] },
    });
    expect(update.status, JSON.stringify(update.body)).toBe(200);
    await advanceTo(account, at("05-02"));
    expect(rows(await account.ledger()).slice(5)).toEqual([["Expiration", -100, 0, null, false]]);
  });

  it("refuses expiresAfter with rollover; a recurring grant with expiresAt or an old effectiveAt", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("06-15") } });
    const refused = await server.rest("POST", "/contracts", {
      token: account.token,
      body: {
        customerId: account.customerId,
        name: "Plan",
        startDate: at("06-01"),
        creditGrants: [
          {
            amount: 10,
            recurrence: { every: { unit: "MONTH", value: 1 }, rollover: { maxAmount: 5 } },
            expiresAfter: { unit: "DAY", value: 60 },
          },
        ],
      },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("creditGrants.0.expiresAfter");
    const grant = {
      customerId: account.customerId,
      amount: 5,
      type: "Grant",
      recurrence: { every: { unit: "MONTH", value: 1 } },
    };
    const withExpiry = await server.rest("POST", "/credits", {
      token: account.token,
      body: { ...grant, expiresAt: at("07-01") },
    });
    expect(withExpiry.status).toBe(400);
    expect(JSON.stringify(withExpiry.body)).toContain("expiresAt");
    const backdated = await server.rest("POST", "/credits", {
      token: account.token,
      body: { ...grant, effectiveAt: at("05-15") },
    });
    expect(backdated.status).toBe(400);
    expect(JSON.stringify(backdated.body)).toContain("effectiveAt");
    expect(await account.ledger()).toEqual([]);
  });
});

describe("issued in the background, the billing scheduler off", () => {
  it("the twin's issuer writes a new period's grant with nobody reading the ledger", async () => {
    const account = await billingAccount(server);
    // Period 2 starts 1.5 s from now: effectiveAt is one month before that (within one period of now).
    const nextStart = new Date(Date.now() + 1500);
    const anchor = addMonths(nextStart, -1);
    // On a clamped day (Mar 30 → Feb 28) no anchor gives that start: nothing to test then.
    if (addMonths(anchor, 1).getTime() !== nextStart.getTime()) return;
    await account.post(
      "/credits",
      {
        customerId: account.customerId,
        amount: 3,
        type: "Grant",
        effectiveAt: anchor.toISOString(),
        recurrence: { every: { unit: "MONTH", value: 1 } },
      },
      201,
    );
    const entries = server.service.db.collection("credit_entries");
    const deadline = Date.now() + 10_000;
    // Read the stored entries, not the API: a ledger read would issue the period itself.
    while ((await entries.countDocuments({ accountId: account.accountId, period: 2 })) === 0) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 3, 3, 1, false],
      ["Expiration", -3, 0, null, false],
      ["Grant", 3, 3, 2, false],
    ]);
  });
});

describe("a plan's creditGrants", () => {
  it("a contract made from the plan is granted them; a move to a version granting others takes those", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("01-01") } });
    const monthlyGrant = (amount: number, rollover?: number) => ({
      amount,
      recurrence: { every: { unit: "MONTH", value: 1 }, ...(rollover && { rollover: { maxAmount: rollover } }) },
    });
    const created = await server.rest("POST", "/plans", {
      token: account.token,
      body: { key: "credits", name: "Credits", currency: "USD", products: [], creditGrants: [monthlyGrant(500, 200)] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.plan.creditGrants).toEqual([monthlyGrant(500, 200)]);
    const v2 = await server.rest("POST", "/plans/credits/versions", {
      token: account.token,
      body: { products: [], creditGrants: [monthlyGrant(300)] },
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(201);
    const contract = (
      await account.post(
        "/contracts",
        {
          customerId: account.customerId,
          name: "On the plan",
          startDate: at("01-01"),
          planId: "credits",
          planVersion: 1,
        },
        201,
      )
    ).contract;
    expect(contract.creditGrants).toEqual([monthlyGrant(500, 200)]);
    // Usage from other contracts' prepaid invoices (credits are the customer's): 350 on Jan 10, 600 on Feb 10.
    await account.contract(prepaidMonth(at("01-10"), at("02-10"), 350));
    await account.contract(prepaidMonth(at("02-10"), at("03-10"), 600));
    await advanceTo(account, at("02-15"));
    // Jan 1: grant 500; Jan 10 uses 350 → 150. Feb 1: 150 expire, 150 (≤ 200) roll over, grant 500 → 650.
    // Feb 10 uses 600: the rollover's 150 first, then 450 of the grant → 50.
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 500, 500, 1, false],
      ["Usage", -350, 150, null, false],
      ["Expiration", -150, 0, null, false],
      ["Grant", 150, 150, 2, true],
      ["Grant", 500, 650, 2, false],
      ["Usage", -150, 500, null, false],
      ["Usage", -450, 50, null, false],
    ]);
    expect((await account.ledger())[0]).toMatchObject({
      contractId: contract.id,
      recurringGrantId: `${contract.id}/0`,
    });
    // Moved to version 2 from Mar 1: it had version 1's grants, so it takes version 2's (300, no rollover) for the
    // periods not issued yet. Mar 1: the 50 left expire, nothing rolls over, grant 300 → 300.
    const moved = await server.rest("PATCH", `/contracts/${contract.id}`, {
      token: account.token,
      body: { planVersion: 2, effectiveFrom: at("03-01") },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.contract.creditGrants).toEqual([monthlyGrant(300)]);
    expect(moved.body.contract.plan).toMatchObject({ key: "credits", version: 2 });
    await advanceTo(account, at("03-02"));
    expect(rows(await account.ledger()).slice(7)).toEqual([
      ["Expiration", -50, 0, null, false],
      ["Grant", 300, 300, 3, false],
    ]);
  });
});

describe("POST /credits/{entryId}/recurrence/cancel", () => {
  it("stops the periods after those started; issued ones stay; keyed, once, announced once", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("01-01") } });
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/credits" }, 201);
    const first = (
      await account.post(
        "/credits",
        {
          customerId: account.customerId,
          amount: 100,
          type: "Grant",
          recurrence: { every: { unit: "MONTH", value: 1 }, rollover: { maxAmount: 30 } },
        },
        201,
      )
    ).entry;
    await advanceTo(account, at("02-10"));
    const cancel = (key: string) =>
      server.rest("POST", `/credits/${first.id}/recurrence/cancel`, {
        token: account.token,
        headers: { "idempotency-key": key },
      });
    const canceled = await cancel("cancel-1");
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    // Periods 1 (Jan) and 2 (Feb, started Feb 1) are issued: February's is the last.
    expect(canceled.body.recurringGrant).toMatchObject({
      id: first.recurringGrantId,
      customerId: account.customerId,
      amount: 100,
      recurrence: { every: { unit: "MONTH", value: 1 }, rollover: { maxAmount: 30 } },
      effectiveAt: at("01-01"),
      lastPeriod: 2,
      canceledAt: at("02-10"),
    });
    // The same key answers the same; another key (a second cancellation) answers the cancellation as recorded.
    expect((await cancel("cancel-1")).body).toEqual(canceled.body);
    expect((await cancel("cancel-2")).body).toEqual(canceled.body);
    await advanceTo(account, at("04-02"));
    // Jan 1: 100. Feb 1: 100 expire, 30 roll over, 100 granted → 130. Mar 1: both expire (130), nothing is carried
    // or granted: period 3 would have been the first after the last.
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 100, 100, 1, false],
      ["Expiration", -100, 0, null, false],
      ["Grant", 30, 30, 2, true],
      ["Grant", 100, 130, 2, false],
      ["Expiration", -30, 100, null, false],
      ["Expiration", -100, 0, null, false],
    ]);
    const deliveries = (
      await server.rest("GET", `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, { token: account.token })
    ).body.deliveries;
    expect(deliveries.filter((delivery: any) => delivery.eventType === "credit.recurrence_canceled")).toHaveLength(1);
    // A plain grant's entry is no recurring grant's (409); an unknown entry is 404.
    const plain = (await account.post("/credits", { customerId: account.customerId, amount: 5, type: "Grant" }, 201))
      .entry;
    const notRecurring = await server.rest("POST", `/credits/${plain.id}/recurrence/cancel`, { token: account.token });
    expect(notRecurring.status).toBe(409);
    expect(JSON.stringify(notRecurring.body)).toContain("entryId");
    const unknown = await server.rest("POST", `/credits/${new ObjectId().toHexString()}/recurrence/cancel`, {
      token: account.token,
    });
    expect(unknown.status).toBe(404);
  });

  it("a cancellation whose request stopped before announcing it: the webhook sweep announces it, once", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("01-01") } });
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/swept" }, 201);
    const grant = {
      customerId: account.customerId,
      amount: 3,
      type: "Grant",
      recurrence: { every: { unit: "MONTH", value: 1 } },
    };
    const first = (await account.post("/credits", grant, 201)).entry;
    // What the request records before it publishes (its insert), and nothing after: a crash between the two.
    const { repositories } = server.service;
    expect(
      await repositories.creditRecurrences.cancel(account.accountId, first.recurringGrantId, 1, new Date(at("01-01"))),
    ).toBe(true);
    const canceledEvents = async () =>
      (
        await server.rest("GET", `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, { token: account.token })
      ).body.deliveries.filter((delivery: any) => delivery.eventType === "credit.recurrence_canceled");
    await sweepChanges(repositories);
    expect(await canceledEvents()).toHaveLength(1);
    // Swept again, and the call repeated: the same message, no second delivery.
    await sweepChanges(repositories);
    const again = await server.rest("POST", `/credits/${first.id}/recurrence/cancel`, { token: account.token });
    expect(again.body.recurringGrant).toMatchObject({ lastPeriod: 1, canceledAt: at("01-01") });
    expect(await canceledEvents()).toHaveLength(1);
  });

  it("10 concurrent cancellations on two instances: one recorded, all answer it, one event", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("01-01") } });
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/race" }, 201);
    const grant = {
      customerId: account.customerId,
      amount: 7,
      type: "Grant",
      recurrence: { every: { unit: "MONTH", value: 1 } },
    };
    const first = (await account.post("/credits", grant, 201)).entry;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        fetch(`${[server.url, twin.url][index % 2]}/credits/${first.id}/recurrence/cancel`, {
          method: "POST",
          headers: { authorization: `Bearer ${account.token}` },
        }).then(async (response) => [response.status, (await response.json()).recurringGrant]),
      ),
    );
    expect(answers.map(([status]) => status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map(([, body]) => JSON.stringify(body))).size).toBe(1);
    expect(answers[0]?.[1]).toMatchObject({ lastPeriod: 1, canceledAt: at("01-01") });
    const deliveries = (
      await server.rest("GET", `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, { token: account.token })
    ).body.deliveries;
    expect(deliveries.filter((delivery: any) => delivery.eventType === "credit.recurrence_canceled")).toHaveLength(1);
    await advanceTo(account, at("03-02"));
    // Period 1 only: Jan 1 7; Feb 1 it expires and nothing is granted.
    expect(rows(await account.ledger())).toEqual([
      ["Grant", 7, 7, 1, false],
      ["Expiration", -7, 0, null, false],
    ]);
  });

  it("a contract's recurring grant is changed with its contract: 409", async () => {
    const account = await billingAccount(server, {}, { testClock: { at: at("01-01") } });
    const contract = await account.contract({
      startDate: at("01-01"),
      creditGrants: [{ amount: 10, recurrence: { every: { unit: "MONTH", value: 1 } } }],
    });
    const [entry] = await account.ledger();
    expect(entry.contractId).toBe(contract.id);
    const refused = await server.rest("POST", `/credits/${entry.id}/recurrence/cancel`, { token: account.token });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain("creditGrants");
  });
});
