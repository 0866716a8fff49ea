import { describe, expect, it } from "vitest";
import { createRepositories } from "../src/repositories/index.js";
import { type BillingAccount, billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { setLateUsage, tokens, tokensAccount } from "./support/late-usage.js";

const server = useTestServer();

const getBackfill = async (account: BillingAccount, id: string) =>
  (await server.rest("GET", `/backfills/${id}`, { token: account.token })).body.backfill;
const revert = (account: BillingAccount, id: string, headers?: Record<string, string>) =>
  server.rest("POST", `/backfills/${id}/revert`, { token: account.token, ...(headers && { headers }) });

/** Upkeep ticks until the backfill reaches one of `ends` (a tick: pending voids applied, a step of each backfill). */
async function until(account: BillingAccount, id: string, ends: string[]) {
  for (let tick = 0; tick < 20; tick += 1) {
    await server.service.upkeep.tick();
    if (ends.includes((await getBackfill(account, id)).status)) break;
  }
  await server.service.upkeep.tick(); // the voids of the last step applied to the rollups
  return getBackfill(account, id);
}

const marchUsage = async (account: BillingAccount) => {
  const query = `customerId=${account.customerId}&meterKey=tokens&startDate=2025-03-01&endDate=2025-04-01`;
  return (await server.rest("GET", `/usage?${query}`, { token: account.token })).body.usage.value;
};
/** The stored events of March by ref, each with its void's or restore's reason. */
const marchEvents = async (account: BillingAccount) => {
  const query = "startTime=2025-03-01T00:00:00Z&endTime=2025-04-01T00:00:00Z&limit=1000";
  const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
  return Object.fromEntries(
    (events as { ref: string; voided?: { reason: string }; restored?: { reason: string } }[]).map((event) => [
      event.ref,
      event.voided ? `voided: ${event.voided.reason}` : event.restored ? `restored: ${event.restored.reason}` : "",
    ]),
  );
};
const explainRef = async (account: BillingAccount, ref: string) => {
  const query = "startTime=2025-03-01T00:00:00Z&endTime=2025-04-01T00:00:00Z&limit=1000";
  const { events } = (await server.rest("GET", `/events?${query}`, { token: account.token })).body;
  const event = (events as { id: string; ref: string }[]).find((candidate) => candidate.ref === ref);
  return (await server.rest("GET", `/events/${event?.id}`, { token: account.token })).body;
};
const lateLines = (invoice: { lineItems: { kind: string }[] }) =>
  invoice.lineItems.filter((line) => line.kind === "LATE_USAGE");

describe("POST /backfills/{backfillId}/revert (issue 45): a REPLACE of Mar 1–15 reverted", () => {
  it("voids its events, restores those it replaced: usage and March back to the figures before it", async () => {
    const { account, contract } = await tokensAccount(server);
    // March finalized Apr 1 is adjusted by June 1's run too (61 days).
    expect((await setLateUsage(server, account, { policy: "NEXT_INVOICE", windowDays: 90 })).status).toBe(200);
    await account.post("/webhook-endpoints", { url: "https://hooks.example.com/r", eventTypes: [] }, 201);
    await account.post("/events", {
      events: [
        tokens("a", "2025-03-05T10:00:00Z", 500),
        tokens("b", "2025-03-10T10:00:00Z", 300),
        tokens("c", "2025-03-12T10:00:00Z", 400),
        tokens("d", "2025-03-20T10:00:00Z", 100), // after the window: kept throughout
      ],
    });
    await account.run("2025-04-01T00:00:00Z");
    const [march] = await account.invoices(contract.id);
    // 1,300 tokens: 1,000 × 0.01 = 10.00 + 300 × 0.005 = 1.50 → 11.50
    expect(march.amount).toBe(11.5);

    const opened = await account.post(
      "/backfills",
      {
        customerId: account.customerId,
        meterKey: "tokens",
        from: "2025-03-01T00:00:00Z",
        to: "2025-03-16T00:00:00Z",
        mode: "REPLACE",
        events: [tokens("e1", "2025-03-03T10:00:00Z", 200), tokens("e2", "2025-03-14T10:00:00Z", 100)],
      },
      202,
    );
    const id = opened.backfill.id;
    // Not revertible before it is COMPLETED: 409 naming its status.
    const early = await revert(account, id);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: "CONFLICT", issues: [{ path: "backfillId", message: "is PENDING" }] });
    expect(await until(account, id, ["COMPLETED", "FAILED"])).toMatchObject({
      status: "COMPLETED",
      counts: { events: 2, replaced: 3, stored: 2, reverted: 0, restored: 0 },
      revert: null,
    });
    // 200 + 100 + d's 100 = 400 tokens = 4.00
    expect(await marchUsage(account)).toBe(400);
    await account.run("2025-05-01T00:00:00Z");
    // March priced again: 4.00 − 11.50 → a credit note of 7.50, OFFSET: March due 4.00.
    const notes = (await server.rest("GET", `/credit-notes?invoiceId=${march.id}`, { token: account.token })).body;
    expect(notes.creditNotes).toEqual([expect.objectContaining({ amount: 7.5, reason: "USAGE_CORRECTION" })]);

    const reverting = await revert(account, id, { "Idempotency-Key": "undo-march" });
    expect(reverting.status).toBe(202);
    expect(reverting.body.backfill).toMatchObject({
      status: "REVERTING",
      revert: { requestedBy: { type: "token" }, completedAt: null },
    });
    // Keyed: the same call replays its answer; another call is refused, naming the status.
    expect((await revert(account, id, { "Idempotency-Key": "undo-march" })).body).toEqual(reverting.body);
    const again = await revert(account, id);
    expect(again.status).toBe(409);
    expect(again.body.issues).toEqual([{ path: "backfillId", message: "is REVERTING" }]);

    const reverted = await until(account, id, ["REVERTED"]);
    expect(reverted).toMatchObject({ status: "REVERTED", counts: { reverted: 2, restored: 3 } });
    expect(reverted.revert.completedAt).toEqual(expect.any(String));
    expect(await marchEvents(account)).toEqual({
      a: `restored: Reverted backfill ${id}`,
      b: `restored: Reverted backfill ${id}`,
      c: `restored: Reverted backfill ${id}`,
      d: "",
      e1: `voided: Reverted backfill ${id}`,
      e2: `voided: Reverted backfill ${id}`,
    });
    // The rollups summarized again: 500 + 300 + 400 + 100, as before the backfill.
    expect(await marchUsage(account)).toBe(1300);
    // The restore names the void it undid; counted again, stored (for late usage) when restored.
    const b = await explainRef(account, "b");
    expect(b.event.restored).toMatchObject({
      reason: `Reverted backfill ${id}`,
      voided: { reason: `Replaced by backfill ${id}` },
    });
    expect(b.event.voided).toBeUndefined();
    expect(b.attribution.meters).toEqual([{ key: "tokens", counted: false, reason: "AFTER_INVOICE" }]);
    expect((await explainRef(account, "e1")).event).toMatchObject({ backfillId: id });

    // June 1: March priced again at 1,300 = 11.50; charged 11.50 − 7.50 = 4.00 → +7.50 for +900 on May's, once.
    await account.run("2025-06-01T00:00:00Z");
    await account.run("2025-06-01T00:00:00Z");
    const [marchAfter, april, may] = await account.invoices(contract.id);
    expect(marchAfter.amountDue).toBe(4);
    expect(lateLines(april)).toEqual([]);
    expect(lateLines(may)).toEqual([
      expect.objectContaining({
        name: `Late usage, ${march.number} (Mar 2025): +900 tokens`,
        revenueBreakdown: expect.objectContaining({ total: 7.5 }),
      }),
    ]);
    // What March bills in all: 4.00 due + 7.50 on May's = 11.50, the figure before the backfill.
    expect((await explainRef(account, "b")).attribution.meters).toEqual([
      { key: "tokens", counted: true, reason: "ADJUSTED", adjustedBy: may.id },
    ]);

    // Announced once, audited once (the replay appended nothing).
    const messages = await server.service.db
      .collection("webhookMessages")
      .find({ accountId: account.accountId, type: "backfill.reverted" })
      .toArray();
    expect(messages.map((message) => JSON.parse(message.payload).data.status)).toEqual(["REVERTED"]);
    const audit = await server.rest("GET", "/audit-log?action=backfills.revert", { token: account.token });
    expect(audit.body.entries).toHaveLength(1);
    expect((await revert(account, id)).body.issues).toEqual([{ path: "backfillId", message: "is REVERTED" }]);

    // Another account's backfill: 404.
    const other = await billingAccount(server, { name: "Other" });
    expect((await revert(other, id)).status).toBe(404);
  }, 90_000);
});

describe("POST /backfills/{backfillId}/revert: once, across calls and crashes", () => {
  it("two calls at once: one 202, one 409; a claim left by a call that died is finished by the next", async () => {
    const { account } = await tokensAccount(server);
    const open = async (ref: string) => {
      const body = {
        meterKey: "tokens",
        from: "2025-03-01T00:00:00Z",
        to: "2025-04-01T00:00:00Z",
        mode: "ADD",
        events: [tokens(ref, "2025-03-02T10:00:00Z", 10)],
      };
      const id = (await account.post("/backfills", body, 202)).backfill.id as string;
      expect((await until(account, id, ["COMPLETED"])).status).toBe("COMPLETED");
      return id;
    };
    const first = await open("x1");
    const statuses = (await Promise.all([revert(account, first), revert(account, first)])).map(({ status }) => status);
    expect(statuses.sort()).toEqual([202, 409]);
    expect((await until(account, first, ["REVERTED"])).counts).toMatchObject({ reverted: 1 });

    // A call that claimed the revert and died before marking the backfill: the next call marks it, and is refused.
    const second = await open("x2");
    const repositories = createRepositories(server.service.db);
    const stored = await repositories.backfills.get(account.accountId, second);
    if (!stored) throw new Error("stored");
    const claim = { requestedAt: new Date("2026-01-01T00:00:00Z"), requestedBy: { type: "operator" as const } };
    expect(await repositories.backfills.claimRevert(stored, claim)).toBe(true);
    expect((await getBackfill(account, second)).status).toBe("COMPLETED");
    const refused = await revert(account, second);
    expect(refused.status).toBe(409);
    expect(await getBackfill(account, second)).toMatchObject({
      status: "REVERTING",
      revert: { requestedAt: "2026-01-01T00:00:00.000Z", requestedBy: { type: "operator" } },
    });
    expect(await until(account, second, ["REVERTED"])).toMatchObject({ status: "REVERTED", counts: { reverted: 1 } });
    expect(await marchUsage(account)).toBe(0);
  }, 60_000);
});
