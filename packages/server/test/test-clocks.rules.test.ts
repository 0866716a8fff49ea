import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { advanceTestClock } from "../src/services/billing/test-clock/advance.js";
import { billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { pdfText } from "./support/pdf-text.js";
import { ADMIN_TOKEN } from "./support/server.js";

/** Test clocks' rules (issue 42; docs/decisions.md, "Test clocks"): who has one, what it refuses, one at a time. */
const control = testHooks();
const server = useTestServer({ hooks: control.hooks });

// After any real clock these tests run on: what real time would allow, the clock refuses, and the reverse.
const JAN_1 = "2027-01-01T00:00:00.000Z";
const APR_2 = "2027-04-02T00:00:00.000Z";
const HEADER = "billing-test-clock";

const flatMonthly = {
  startDate: JAN_1,
  products: [{ displayName: "Fee", scheduling: monthly(1), pricing: { type: "FLAT", price: 10 } }],
};

const testAccount = (at = JAN_1) => billingAccount(server, {}, { testClock: { at } });

const advance = (token: string, to: unknown) => server.rest("POST", "/test-clock/advance", { token, body: { to } });

const issuesOf = (body: { issues?: { path: string }[] }) => body.issues?.map((issue) => issue.path);

describe("a test account", () => {
  it("shows its clock on the account and in a Billing-Test-Clock header on every answer, errors too", async () => {
    const { body: created } = await server.rest("POST", "/admin/accounts", {
      token: ADMIN_TOKEN,
      body: { name: "Clocked", testClock: { at: JAN_1 } },
    });
    expect(created.account.testClock).toEqual({ at: JAN_1 });
    const admin = await server.rest("GET", `/admin/accounts/${created.account.id}`, { token: ADMIN_TOKEN });
    expect(admin.body.account.testClock).toEqual({ at: JAN_1 });
    const { token } = created;
    const made = await server.rest("POST", "/customers", { token, body: { name: "Acme" } });
    expect([made.status, made.headers.get(HEADER)]).toEqual([201, JAN_1]);
    const missing = await server.rest("GET", "/customers/000000000000000000000000", { token });
    expect([missing.status, missing.headers.get(HEADER)]).toEqual([404, JAN_1]);
    const viaTrpc = await fetch(`${server.url}/trpc/testClock.get`, { headers: { authorization: `Bearer ${token}` } });
    expect(viaTrpc.headers.get(HEADER)).toBe(JAN_1);
  });

  it("a live account has none: no header, GET /test-clock and an advance are 404", async () => {
    const live = await billingAccount(server);
    const read = await server.rest("GET", "/test-clock", { token: live.token });
    expect(read.status).toBe(404);
    expect(read.body.message).toMatch(/no test clock/);
    expect(read.headers.get(HEADER)).toBeNull();
    expect((await advance(live.token, APR_2)).status).toBe(404);
  });

  it("stamps its documents TEST", async () => {
    const account = await testAccount();
    await account.contract(flatMonthly);
    await advance(account.token, "2027-02-01T00:00:00Z");
    const [invoice] = await account.allInvoices();
    const pdf = await fetch(`${server.url}/invoices/${invoice.id}/pdf`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    expect(pdf.headers.get(HEADER)).toBe("2027-02-01T00:00:00.000Z");
    expect(await pdfText(new Uint8Array(await pdf.arrayBuffer()))).toContain("TEST");
    const html = await server.rest("GET", `/invoices/${invoice.id}/html`, { token: account.token });
    expect(html.body).toContain('<div class="stamp">TEST</div>');
  });
});

describe("POST /test-clock/advance refuses", () => {
  it("going back (400 naming `to`), over 731 days at once, no `to`; its own time does nothing", async () => {
    const { token } = await testAccount();
    const back = await advance(token, "2026-12-31T23:59:59Z");
    expect([back.status, issuesOf(back.body)]).toEqual([400, ["to"]]);
    expect(back.body.message).toMatch(/never goes back/);
    // Jan 1, 2027 + 731 days (365, then 366 of 2028) = Jan 1, 2029; from there, 731 days = Jan 2, 2031.
    expect((await advance(token, "2029-01-01T00:00:00Z")).status).toBe(200);
    const far = await advance(token, "2031-01-02T00:00:00.001Z");
    expect([far.status, issuesOf(far.body)]).toEqual([400, ["to"]]);
    expect((await server.rest("POST", "/test-clock/advance", { token, body: {} })).status).toBe(400);
    const same = await advance(token, "2029-01-01T00:00:00Z");
    expect(same.status).toBe(200);
    expect(same.body.advance).toMatchObject({ moments: 0, invoicesCreated: 0, hasMore: false });
  });
});

describe("PATCH /admin/accounts/{accountId} with testClock", () => {
  const patch = (accountId: string, body: unknown) =>
    server.rest("PATCH", `/admin/accounts/${accountId}`, { token: ADMIN_TOKEN, body });

  it("makes a live account with no invoice a test account, for good", async () => {
    const account = await billingAccount(server);
    const made = await patch(account.accountId, { testClock: { at: JAN_1 } });
    expect([made.status, made.body.account.testClock]).toEqual([200, { at: JAN_1 }]);
    expect((await server.rest("GET", "/test-clock", { token: account.token })).body.testClock).toEqual({ at: JAN_1 });
    const again = await patch(account.accountId, { testClock: { at: APR_2 } });
    expect([again.status, issuesOf(again.body)]).toEqual([409, ["testClock"]]);
    expect((await patch(account.accountId, { testClock: null })).status).toBe(400);
  });

  it("refuses an account with invoices: 409", async () => {
    const account = await billingAccount(server);
    await account.contract({ ...flatMonthly, startDate: "2024-01-01T00:00:00Z" });
    await account.run("2024-02-01T00:00:00Z");
    const refused = await patch(account.accountId, { testClock: { at: JAN_1 } });
    expect([refused.status, issuesOf(refused.body)]).toEqual([409, ["testClock"]]);
    expect((await server.rest("GET", "/test-clock", { token: account.token })).status).toBe(404);
  });
});

describe("billing time is the clock's", () => {
  it("events and measurements up to the clock's time, not later; runs and grants checked against it", async () => {
    const account = await testAccount("2027-01-10T12:00:00Z");
    await account.post("/meters", { key: "calls", eventName: "call", aggregation: "COUNT" }, 201);
    const event = (ref: string, timestamp: string) => ({ ref, name: "call", timestamp, customerAlias: "acme" });
    const late = await server.rest("POST", "/events", {
      token: account.token,
      body: { events: [event("a", "2027-01-10T12:00:00Z"), event("b", "2027-01-10T12:00:00.001Z")] },
    });
    expect([late.status, issuesOf(late.body)]).toEqual([400, ["events.1.timestamp"]]);
    await account.post("/events", { events: [event("a", "2027-01-10T12:00:00Z")] });
    const tomorrow = await server.rest("POST", "/measurements", {
      token: account.token,
      body: {
        customerId: account.customerId,
        meterId: "calls",
        usageDate: { year: 2027, month: 1, day: 11 },
        value: 1,
      },
    });
    expect([tomorrow.status, issuesOf(tomorrow.body)]).toEqual([400, ["usageDate"]]);
    await account.measure("calls", "2027-01-10", 5);
    // A run after the clock (5 minutes of slack) bills the future: refused, though real time is long past 2026.
    const ahead = await server.rest("POST", "/billing-runs", {
      token: account.token,
      body: { at: "2027-01-11T00:00:00Z" },
    });
    expect([ahead.status, issuesOf(ahead.body)]).toEqual([400, ["at"]]);
    expect((await account.runOnce("2027-01-10T12:00:00Z")).hasMore).toBe(false);
    // A grant must expire after the clock's time: Jan 5, 2027 is after real now, yet before the clock.
    const grant = { customerId: account.customerId, amount: 5, type: "Grant", expiresAt: "2027-01-05T00:00:00Z" };
    const expired = await server.rest("POST", "/credits", { token: account.token, body: grant });
    expect([expired.status, issuesOf(expired.body)]).toEqual([400, ["expiresAt"]]);
  });

  it("overdue follows the clock: an invoice is overdue once the clock passes its due date", async () => {
    const account = await testAccount();
    const contract = await account.contract(flatMonthly);
    const overdue = async () =>
      (await server.rest("GET", "/invoices?overdue=true", { token: account.token })).body.invoices.map(
        (invoice: any) => invoice.billingCycle.startTime,
      );
    // Each month 10.00, unpaid: Jan due Mar 3, Feb due Mar 31, Mar due May 1, Apr due May 31.
    await advance(account.token, APR_2);
    expect(await overdue()).toEqual(["2027-01-01T00:00:00.000Z", "2027-02-01T00:00:00.000Z"]);
    await advance(account.token, "2027-05-02T00:00:00Z");
    expect(await overdue()).toEqual([
      "2027-01-01T00:00:00.000Z",
      "2027-02-01T00:00:00.000Z",
      "2027-03-01T00:00:00.000Z",
    ]);
    expect((await account.invoices(contract.id)).map((invoice) => invoice.overdue)).toEqual([true, true, true, false]);
  });
});

describe("one advance at a time", () => {
  it("a second advance while one holds the clock is 409 and does nothing; nothing is done twice", async () => {
    const account = await testAccount();
    const contract = await account.contract(flatMonthly);
    const pause = control.pauseOnce("testClocks.leased", account.accountId);
    const first = advance(account.token, APR_2);
    await pause.reached;
    const second = await advance(account.token, APR_2);
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(/being advanced by another call/);
    pause.release();
    expect((await first).body.advance).toMatchObject({ reached: APR_2, invoicesCreated: 3, hasMore: false });
    // Racing without a pause: one advances, each other is a 409 or finds nothing left to do.
    const to = "2027-06-02T00:00:00Z";
    const answers = await Promise.all([
      advance(account.token, to),
      advance(account.token, to),
      advance(account.token, to),
    ]);
    const made = answers.filter(({ status }) => status === 200).map(({ body }) => body.advance.invoicesCreated);
    expect(answers.every(({ status }) => status === 200 || status === 409)).toBe(true);
    expect(made.toSorted()).toEqual([...made.map(() => 0).slice(1), 2]);
    // Jan to May: five invoices, each once, numbered without a gap.
    const invoices = await account.invoices(contract.id);
    expect(invoices.map((invoice) => invoice.number)).toEqual([
      "INV-000001",
      "INV-000002",
      "INV-000003",
      "INV-000004",
      "INV-000005",
    ]);
  });

  it("a call cut short answers hasMore, the clock at its last moment done; the same `to` goes on", async () => {
    const account = await testAccount();
    const contract = await account.contract(flatMonthly);
    const scope = {
      repositories: server.service.repositories,
      accountId: account.accountId,
      log: createLogger("silent"),
      graceMs: 0,
      draftMs: 0,
    };
    // No time budget: each call does one moment (Jan 1, where the contract is first looked at; Feb 1, Mar 1, Apr 1).
    const limits = { timeBudgetMs: 0, leaseMs: 60_000 };
    const reached = [];
    for (;;) {
      const { advance: step, testClock } = await advanceTestClock(scope, new Date(APR_2), { limits });
      reached.push(step.reached);
      if (!step.hasMore) break;
      expect(testClock).toEqual({ at: step.reached, advancingTo: APR_2 });
      const shown = await server.rest("GET", "/test-clock", { token: account.token });
      expect(shown.body.testClock).toEqual({ at: step.reached, advancingTo: APR_2 });
    }
    expect(reached).toEqual([
      JAN_1,
      "2027-02-01T00:00:00.000Z",
      "2027-03-01T00:00:00.000Z",
      "2027-04-01T00:00:00.000Z",
      APR_2,
    ]);
    expect((await server.rest("GET", "/test-clock", { token: account.token })).body.testClock).toEqual({ at: APR_2 });
    expect((await account.invoices(contract.id)).map((invoice) => invoice.finalizedAt)).toEqual([
      "2027-02-01T00:00:00.000Z",
      "2027-03-01T00:00:00.000Z",
      "2027-04-01T00:00:00.000Z",
    ]);
  });
});
