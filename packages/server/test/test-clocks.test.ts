import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BillingAccount, billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { changedCollections, snapshotData } from "./support/stored-data.js";
import { FAST, type Receiver, startReceiver, sweptSince } from "./support/webhook-receiver.js";

/** Test clocks (issue 42; docs/decisions.md, "Test clocks"): a year of billing in seconds. */
const server = useTestServer({ webhooks: FAST });

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

// 2027 is after the real clock of any run of these tests: a "now" read from real time would refuse what the clock
// allows (a grant expiring in 2027 would not expire, a run at 2027 would be in the future).
const JAN_1 = "2027-01-01T00:00:00.000Z";
const FEB_1 = "2027-02-01T00:00:00.000Z";
const MAR_1 = "2027-03-01T00:00:00.000Z";
const MAR_15 = "2027-03-15T00:00:00.000Z";
const APR_1 = "2027-04-01T00:00:00.000Z";
const APR_2 = "2027-04-02T00:00:00.000Z";

/**
 * A test account whose clock starts on Jan 1, 2027, with a monthly 10.00 flat fee in arrears from Jan 1 and a grant
 * of 25.00 expiring on Mar 15; with `hooks`, an endpoint taking every event.
 */
async function clockedAccount({ hooks = false } = {}) {
  const account = await billingAccount(server, {}, { testClock: { at: JAN_1 } });
  if (hooks) await account.post("/webhook-endpoints", { url: receiver.url }, 201);
  const contract = await account.contract({
    startDate: JAN_1,
    products: [{ displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 10 } }],
  });
  const grant = (
    await account.post(
      "/credits",
      { customerId: account.customerId, amount: 25, type: "Grant", expiresAt: MAR_15 },
      201,
    )
  ).entry;
  return { account, contract, grant };
}

const advance = (account: BillingAccount, to: string) =>
  server.rest("POST", "/test-clock/advance", { token: account.token, body: { to } });

/** Advances to `to`, calling again while the answer says `hasMore`; the answers. */
async function advanceToEnd(account: BillingAccount, to: string) {
  const answers = [];
  for (;;) {
    const { status, body } = await advance(account, to);
    expect(status, JSON.stringify(body)).toBe(200);
    answers.push(body);
    if (!body.advance.hasMore) return answers;
  }
}

/** What the invoices and the ledger say, to compare two accounts' billing. */
async function billed(account: BillingAccount, contractId: string) {
  const invoices = (await account.invoices(contractId)).map((invoice) => ({
    cycle: [invoice.billingCycle.startTime, invoice.billingCycle.endTime],
    finalizedAt: invoice.finalizedAt,
    dueDate: invoice.dueDate,
    subtotal: invoice.revenueBreakdown.subtotal,
    creditsUsed: invoice.revenueBreakdown.creditsUsed,
    total: invoice.amount,
    number: invoice.number,
  }));
  const ledger = (await account.ledger()).map((entry) => [
    entry.type,
    entry.amount,
    entry.balanceAfterEntry,
    entry.effectiveAt ?? null,
  ]);
  return { invoices, ledger };
}

/** Jan, Feb and Mar, each 10.00, issued on the 1st of the next month, due 30 days after; credits 10, 10, 0. */
const QUARTER = {
  invoices: [
    {
      cycle: [JAN_1, FEB_1],
      finalizedAt: FEB_1,
      dueDate: "2027-03-03T00:00:00.000Z",
      subtotal: 10,
      creditsUsed: 10,
      total: 0,
      number: "INV-000001",
    },
    {
      cycle: [FEB_1, MAR_1],
      finalizedAt: MAR_1,
      dueDate: "2027-03-31T00:00:00.000Z",
      subtotal: 10,
      creditsUsed: 10,
      total: 0,
      number: "INV-000002",
    },
    {
      cycle: [MAR_1, APR_1],
      finalizedAt: APR_1,
      dueDate: "2027-05-01T00:00:00.000Z",
      subtotal: 10,
      creditsUsed: 0,
      total: 10,
      number: "INV-000003",
    },
  ],
  // 25 granted; Feb 1 pays 10 (15 left), Mar 1 pays 10 (5 left); on Mar 15 the 5 left expire, so Apr 1 pays nothing.
  ledger: [
    ["Grant", 25, 25, JAN_1],
    ["Usage", -10, 15, null],
    ["Usage", -10, 5, null],
    ["Expiration", -5, 0, MAR_15],
  ],
};

describe("a quarter of billing in one advance", () => {
  it("bills Jan, Feb, Mar on Feb 1, Mar 1, Apr 1; the grant's rest expires Mar 15; webhooks on its time", async () => {
    const live = await billingAccount(server);
    const liveContract = await live.contract({
      // Months of 2026, due on real time: an advance of another account bills none of them.
      startDate: "2026-01-01T00:00:00Z",
      products: [{ displayName: "Platform", scheduling: monthly(1), pricing: { type: "FLAT", price: 10 } }],
    });
    const { account, contract, grant } = await clockedAccount({ hooks: true });

    const clock = await server.rest("GET", "/test-clock", { token: account.token });
    expect(clock.body).toEqual({ testClock: { at: JAN_1 } });
    expect(clock.headers.get("billing-test-clock")).toBe(JAN_1);

    const liveBefore = await snapshotData(server.service.db, live.accountId);
    const answers = await advanceToEnd(account, APR_2);
    // Another account's data, due the same months, did not change: only the test account's clock moved.
    expect(changedCollections(liveBefore, await snapshotData(server.service.db, live.accountId))).toEqual([]);
    // One call, unless a loaded machine stops it at its 3 s budget (hasMore): each next call goes on where the one
    // before stopped, and the last reaches Apr 2.
    expect(answers.map(({ advance }) => advance.from)).toEqual([
      JAN_1,
      ...answers.slice(0, -1).map((a) => a.advance.reached),
    ]);
    expect(answers.at(-1)).toEqual({
      testClock: { at: APR_2 },
      advance: expect.objectContaining({ to: APR_2, reached: APR_2, hasMore: false }),
    });
    expect(answers.reduce((sum, { advance }) => sum + advance.invoicesCreated, 0)).toBe(3);
    // Moments: Jan 1 (the clock's own time, where a new contract is first looked at), Feb 1, Mar 1 (invoices), Mar 15
    // (expiry), Apr 1 (invoice); then the clock moves on to Apr 2. A call stopped inside a moment leaves it to the
    // next call, which counts it again.
    const moments = answers.reduce((sum, { advance }) => sum + advance.moments, 0);
    expect(moments).toBeGreaterThanOrEqual(5);
    expect(moments).toBeLessThanOrEqual(5 + answers.length - 1);
    expect(await billed(account, contract.id)).toEqual(QUARTER);
    expect((await server.rest("GET", "/test-clock", { token: account.token })).body).toEqual({
      testClock: { at: APR_2 },
    });

    // Every event of the account, each once, stamped with the clock's time of its change, in that order.
    const ours = () =>
      receiver.received
        .map((request) => ({ request, body: JSON.parse(request.body) }))
        .filter(({ body }) => body.data.customerId === account.customerId || body.data.id === account.customerId);
    await receiver.waitFor(() => ours().length >= 10);
    await sweptSince(new Date(), server);
    const invoiceIds = (await account.invoices(contract.id)).map((invoice) => invoice.id);
    const expiration = (await account.ledger()).at(-1);
    const byTimeThenType = (a: string[], b: string[]) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`);
    const events = ours().map(({ body }) => [body.timestamp, body.type, body.data.id]);
    expect(events.toSorted(byTimeThenType)).toEqual([
      [JAN_1, "contract.created", contract.id],
      [JAN_1, "credit.granted", grant.id],
      [FEB_1, "invoice.created", invoiceIds[0]],
      [FEB_1, "invoice.finalized", invoiceIds[0]],
      [MAR_1, "invoice.created", invoiceIds[1]],
      [MAR_1, "invoice.finalized", invoiceIds[1]],
      [MAR_15, "credit.depleted", expiration.id],
      [MAR_15, "credit.expired", expiration.id],
      [APR_1, "invoice.created", invoiceIds[2]],
      [APR_1, "invoice.finalized", invoiceIds[2]],
    ]);
    // Recorded in time order: each message's clock time is at or after the one recorded before it.
    const recorded = await server.service.db
      .collection("webhookMessages")
      .find({ accountId: account.accountId })
      .sort({ createdAt: 1, _id: 1 })
      .toArray();
    const stamps = recorded.map((message) => JSON.parse(message.payload).timestamp as string);
    expect(stamps).toHaveLength(10);
    expect(stamps).toEqual(stamps.toSorted());
    // The signature's timestamp stays real: receivers refuse one more than 5 minutes away.
    for (const { request } of ours()) {
      expect(Math.abs(Number(request.headers["webhook-timestamp"]) * 1000 - Date.now())).toBeLessThan(5 * 60_000);
    }

    // Nothing billed the live account's contract.
    expect(await live.invoices(liveContract.id)).toEqual([]);
  });

  it("gives the same invoices and ledger in 91 one-day advances", async () => {
    const { account, contract } = await clockedAccount();
    let at = new Date(JAN_1);
    for (let day = 1; day <= 91; day += 1) {
      at = new Date(at.getTime() + 86_400_000);
      await advanceToEnd(account, at.toISOString());
    }
    expect(at.toISOString()).toBe(APR_2);
    expect(await billed(account, contract.id)).toEqual(QUARTER);
  });
});
