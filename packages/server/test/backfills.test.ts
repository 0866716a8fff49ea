import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { createRepositories } from "../src/repositories/index.js";
import { stepBackfill } from "../src/services/backfills.js";
import { type BillingAccount, billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import {
  getBackfill as getBackfillOf,
  marchInvoiced,
  marchTokens,
  tokens,
  tokensAccount,
  untilBackfillDone,
} from "./support/late-usage.js";

const server = useTestServer();

const backfill = (account: BillingAccount, body: unknown, headers?: Record<string, string>) =>
  server.rest("POST", "/backfills", { token: account.token, body, ...(headers && { headers }) });
const getBackfill = (account: BillingAccount, id: string) => getBackfillOf(server, account, id);
const untilDone = (account: BillingAccount, id: string) => untilBackfillDone(server, account, id);
const marchUsage = (account: BillingAccount) => marchTokens(server, account);
const storedRefs = async (account: BillingAccount) => {
  const query = "startTime=2025-03-01T00:00:00Z&endTime=2025-04-01T00:00:00Z&limit=1000";
  const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
  return (events as { ref: string; voided?: { reason: string } }[]).map((event) =>
    event.voided ? `${event.ref} (voided: ${event.voided.reason})` : event.ref,
  );
};

describe("POST /backfills (issue 45): REPLACE a day of an invoiced March", () => {
  it("voids the day's events, stores the new ones, and the lowered March is credited exactly", async () => {
    const { account, contract } = await tokensAccount(server);
    await account.post(
      "/webhook-endpoints",
      {
        url: "https://hooks.example.com/b",
        eventTypes: ["backfill.completed", "backfill.failed"],
      },
      201,
    );
    const march = await marchInvoiced(account, contract.id);
    // 1,300 tokens: the first 1,000 at 0.01 = 10.00, 300 at 0.005 = 1.50 → 11.50
    expect(march.amount).toBe(11.5);

    const body = {
      customerId: account.customerId,
      meterKey: "tokens",
      from: "2025-03-10T00:00:00Z",
      to: "2025-03-11T00:00:00Z",
      mode: "REPLACE",
      events: [tokens("b2", "2025-03-10T12:00:00Z", 100)],
    };
    const opened = await backfill(account, body, { "Idempotency-Key": "march-10" });
    expect(opened.status).toBe(202);
    expect(opened.body.backfill).toMatchObject({
      status: "PENDING",
      mode: "REPLACE",
      eventName: "llm",
      counts: { events: 1, replaced: 0, stored: 0, duplicates: 0 },
    });
    const id = opened.body.backfill.id;
    // Keyed: the same call again replays the answer, no second backfill.
    expect((await backfill(account, body, { "Idempotency-Key": "march-10" })).body.backfill.id).toBe(id);
    expect(await marchUsage(account)).toBe(1300); // nothing applied by the call itself

    const done = await untilDone(account, id);
    expect(done).toMatchObject({ status: "COMPLETED", counts: { events: 1, replaced: 2, stored: 1, duplicates: 0 } });
    expect(done.completedAt).toEqual(expect.any(String));
    // b and c voided (kept, with the backfill named), b2 stored, a and d untouched.
    expect((await storedRefs(account)).sort()).toEqual([
      "a",
      `b (voided: Replaced by backfill ${id})`,
      "b2",
      `c (voided: Replaced by backfill ${id})`,
      "d",
    ]);
    expect(await marchUsage(account)).toBe(700); // 500 + 100 + 100

    // The next run prices March again: 700 × 0.01 = 7.00; it charged 11.50 → a credit note of 4.50, once.
    await account.run("2025-05-01T00:00:00Z");
    await account.run("2025-05-01T00:00:00Z");
    const notes = (await server.rest("GET", `/credit-notes?invoiceId=${march.id}&limit=100`, { token: account.token }))
      .body.creditNotes;
    expect(notes).toEqual([expect.objectContaining({ amount: 4.5, reason: "USAGE_CORRECTION", refund: "OFFSET" })]);
    const [marchAfter, april] = await account.invoices(contract.id);
    expect(marchAfter.amountDue).toBe(7); // 11.50 − 4.50
    expect(april.amount).toBe(0);

    // Announced once; audited once (the replay appended nothing); listed.
    const messages = await server.service.db
      .collection("webhookMessages")
      .find({ accountId: account.accountId, type: { $in: ["backfill.completed", "backfill.failed"] } })
      .toArray();
    expect(messages.map((message) => [message.type, JSON.parse(message.payload).data.id])).toEqual([
      ["backfill.completed", id],
    ]);
    const audit = await server.rest("GET", "/audit-log?action=backfills.create", { token: account.token });
    expect(audit.body.entries).toHaveLength(1);
    const listed = await server.rest("GET", "/backfills?limit=10", { token: account.token });
    expect(listed.body.backfills.map((item: { id: string }) => item.id)).toEqual([id]);

    // Another account sees no such backfill, and its list is empty.
    const other = await billingAccount(server, { name: "Other" });
    expect((await server.rest("GET", `/backfills/${id}`, { token: other.token })).status).toBe(404);
    expect((await server.rest("GET", "/backfills", { token: other.token })).body.backfills).toEqual([]);
  }, 60_000);
});

describe("POST /backfills: ADD, resumable, bad input", () => {
  it("stores 600 events in pages of 250; a page redone after a crash changes nothing", async () => {
    const { account } = await tokensAccount(server);
    const events = Array.from({ length: 600 }, (_, index) =>
      tokens(`e${index}`, `2025-03-${String(1 + (index % 28)).padStart(2, "0")}T10:00:00Z`, 1),
    );
    const body = { meterKey: "tokens", from: "2025-03-01T00:00:00Z", to: "2025-04-01T00:00:00Z", mode: "ADD", events };
    const opened = await account.post("/backfills", body, 202);
    const id = opened.backfill.id;
    const repositories = createRepositories(server.service.db);
    const log = createLogger("silent");
    const pending = await repositories.backfills.get(account.accountId, id);
    if (!pending) throw new Error("stored");
    const first = await stepBackfill(repositories, log, pending);
    expect(first).toMatchObject({ status: "INGESTING", counts: { stored: 250, duplicates: 0 } });
    // A crash before its progress was stored: the same step again from the same snapshot stores nothing more.
    const redone = await stepBackfill(repositories, log, pending);
    expect(redone.counts.stored).toBe(0);
    expect((await getBackfill(account, id)).counts).toEqual({
      events: 600,
      replaced: 0,
      stored: 250,
      duplicates: 0,
      reverted: 0,
      restored: 0,
    });
    expect(await marchUsage(account)).toBe(250);
    const done = await untilDone(account, id);
    expect(done).toMatchObject({ status: "COMPLETED", counts: { events: 600, stored: 600, duplicates: 0 } });
    expect(await marchUsage(account)).toBe(600);
  }, 60_000);

  it("refuses events out of scope, an unknown meter or customer, an empty window: 400 naming the field", async () => {
    const { account } = await tokensAccount(server);
    const base = { meterKey: "tokens", from: "2025-03-01T00:00:00Z", to: "2025-03-02T00:00:00Z", mode: "ADD" };
    const paths = async (body: unknown) => {
      const response = await backfill(account, body);
      expect(response.status).toBe(400);
      return response.body.issues.map((issue: { path: string }) => issue.path);
    };
    const wrong = { ...tokens("x", "2025-03-02T00:00:00Z", 1), name: "other", customerAlias: "nobody" };
    expect(await paths({ ...base, customerId: account.customerId, events: [wrong] })).toEqual([
      "events.0.name",
      "events.0.timestamp",
      "events.0.customerAlias",
    ]);
    expect(await paths({ ...base, meterKey: "nope", events: [tokens("x", "2025-03-01T01:00:00Z", 1)] })).toEqual([
      "meterKey",
    ]);
    expect(await paths({ ...base, customerId: "missing", events: [tokens("x", "2025-03-01T01:00:00Z", 1)] })).toEqual([
      "customerId",
    ]);
    expect(await paths({ ...base, to: base.from, events: [tokens("x", "2025-03-01T01:00:00Z", 1)] })).toEqual(["from"]);
    expect(await paths({ ...base, events: [] })).toEqual(["events"]);
    expect((await server.rest("GET", "/backfills", { token: account.token })).body.backfills).toEqual([]);
  }, 30_000);
});
