import { AsyncLocalStorage } from "node:async_hooks";
import type { CommandStartedEvent } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../src/app.js";
import { watchEveryClient } from "../src/db/connect.js";
import { createLogger } from "../src/logger.js";
import { billThresholdsAfter, sweepThresholds } from "../src/services/billing/thresholds.js";
import { type BillingAccount, billingAccount, day, usageProduct } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { ADMIN_TOKEN, startTwinService } from "./support/server.js";
import { FAST, type Receiver, startReceiver } from "./support/webhook-receiver.js";

/**
 * Threshold (progressive) billing (issue 51; docs/decisions.md, "Threshold billing"): a contract's
 * `billingThresholds`; ingestion that takes the running cycle's accrued charges (before tax) to a threshold makes a
 * threshold invoice at once of what accrued less what earlier ones billed, exactly once on two instances; the final
 * invoice takes off what they billed. On a test clock (January 2026), so that the cycle runs "now".
 */
/**
 * Every command the services' clients send (both instances), to count what an account's ingestion costs, each with
 * the call of `commandsOf` it was sent from, if any.
 */
const commands: { event: CommandStartedEvent; call?: symbol }[] = [];
const calls = new AsyncLocalStorage<symbol>();
watchEveryClient((client) => client.on("commandStarted", (event) => commands.push({ event, call: calls.getStore() })));
/**
 * The commands sent while `work` ran that name the account (its id in the filter or the documents). `ownOnly`: only
 * those `work` itself sent (a direct call of the service's code), whatever the workers sent meanwhile — the upkeep's
 * month closing of the same account once wrote and read beside it (`reportClosings`, `mrrLedger`).
 */
async function commandsOf(accountId: string, work: () => Promise<unknown>, { ownOnly = false } = {}) {
  const call = Symbol("work");
  const from = commands.length;
  await calls.run(call, work);
  return commands
    .slice(from)
    .filter((sent) => (!ownOnly || sent.call === call) && JSON.stringify(sent.event.command).includes(accountId))
    .map(({ event }) => event);
}

const server = useTestServer({ webhooks: FAST });
let receiver: Receiver;
let twin: RunningService;
beforeAll(async () => {
  receiver = await startReceiver();
  twin = await startTwinService(server);
});
afterAll(async () => {
  await twin?.close();
  await receiver.close();
});

const CLOCK = "2026-01-10T12:00:00Z";

/** An account on the clock with a SUM meter `tokens` (`n`) and a contract PER_UNIT 0.01, thresholds 100 and 250. */
async function thresholdAccount(alias: string) {
  const account = await billingAccount(server, { aliases: [alias] }, { testClock: { at: CLOCK } });
  await account.post("/webhook-endpoints", { url: receiver.url, eventTypes: ["invoice.threshold_reached"] }, 201);
  await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
  const contract = await account.contract({
    startDate: day("2026-01-01"),
    products: [usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.01 })],
    billingThresholds: [{ amount: 100 }, { amount: 250 }],
  });
  let sent = 0;
  /** `units` tokens used at 2026-01-10 11:00 (before the clock), through `via` (default: the test server). */
  const send = async (units: number, via: { url: string } = server) => {
    sent += 1;
    const events = [
      { ref: `${alias}-${sent}`, name: "tokens", timestamp: "2026-01-10T11:00:00Z", customerAlias: alias },
    ].map((event) => ({ ...event, data: { n: String(units) } }));
    const response = await fetch(`${via.url}/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
      body: JSON.stringify({ events }),
    });
    expect(response.status).toBe(200);
  };
  return { account, contract, send };
}

/** Every instance's evaluation after ingestion done (alerts, then threshold billing). */
const settled = () => Promise.all([server.service.alertsEvaluated(), twin.alertsEvaluated()]);

const byCreation = (invoices: any[]) => [...invoices].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
const lines = (invoice: any) =>
  invoice.lineItems.map((line: any) => [line.kind, line.name, line.revenueBreakdown.total]);

async function advance(account: BillingAccount, to: string) {
  const { status, body } = await server.rest("POST", "/test-clock/advance", { token: account.token, body: { to } });
  expect([status, body.advance?.hasMore], JSON.stringify(body)).toEqual([200, false]);
}

describe("threshold billing", () => {
  it("bills 120.00 at 12,000 units, 270.00 − 120.00 at 27,000, the final 300.00 − 270.00 (two instances)", async () => {
    const { account, contract, send } = await thresholdAccount("thr-a");
    expect(contract.billingThresholds).toEqual([{ amount: 100 }, { amount: 250 }]);

    // 12,000 × 0.01 = 120.00 ≥ 100.00: the first threshold invoice bills what accrued, 120.00.
    await send(12_000);
    await settled();
    const [first] = await account.invoices(contract.id);
    expect(first).toMatchObject({ status: "FINALIZED", amount: 120, finalizedAt: "2026-01-10T12:00:00.000Z" });
    expect(first.name).toMatch(/\(threshold\)$/);
    expect(lines(first)).toEqual([["USAGE", "Tokens", 120]]);
    // A preview of the cycle now shows what is left to bill: 120.00 − 120.00 billed on the threshold invoice = 0.
    const preview = await account.preview({ contractId: contract.id, at: CLOCK });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(lines(preview.body.invoice)).toEqual([
      ["USAGE", "Tokens", 120],
      ["THRESHOLD_BILLED", `Billed on ${first.number} (threshold)`, -120],
    ]);
    expect(preview.body.invoice.amount).toBe(0);

    // 7,500 more on each instance at once (27,000 in all: 270.00 ≥ 250.00): both evaluate, one invoice is made,
    // of the cycle priced whole (270.00) less what the first billed (120.00) = 150.00.
    await Promise.all([send(7_500, server), send(7_500, twin)]);
    await settled();
    const afterSecond = byCreation(await account.invoices(contract.id));
    expect(afterSecond.map((invoice) => invoice.amount)).toEqual([120, 150]);
    expect(lines(afterSecond[1])).toEqual([
      ["USAGE", "Tokens", 270],
      ["THRESHOLD_BILLED", `Billed on ${first.number} (threshold)`, -120],
    ]);

    // 3,000 more (30,000: 300.00): no threshold left to reach beyond 250.00, no invoice.
    await send(3_000);
    await settled();
    expect(await account.invoices(contract.id)).toHaveLength(2);

    // The cycle's end: the final invoice prices the whole cycle, 300.00, less 120.00 and 150.00 = 30.00.
    await advance(account, "2026-02-02T00:00:00Z");
    const all = byCreation(await account.invoices(contract.id));
    expect(all.map((invoice) => invoice.amount)).toEqual([120, 150, 30]);
    const second = afterSecond[1];
    expect(lines(all[2])).toEqual([
      ["USAGE", "Tokens", 300],
      ["THRESHOLD_BILLED", `Billed on ${first.number} (threshold)`, -120],
      ["THRESHOLD_BILLED", `Billed on ${second.number} (threshold)`, -150],
    ]);
    // 120.00 + 150.00 + 30.00 = 300.00: the cycle billed once in all.
    expect(all.reduce((sum, invoice) => sum + invoice.amount * 100, 0)).toBe(30_000);

    // One `invoice.threshold_reached` per threshold invoice, whichever instance made it.
    await receiver.waitFor(() => reached(account.accountId).length >= 2);
    expect(
      reached(account.accountId)
        .map((invoice) => invoice.id)
        .sort(),
    ).toEqual([first.id, second.id].sort());
  });

  it("costs an account without thresholds no command after ingestion; one with them keeps its evaluation", async () => {
    const alias = "thr-none";
    const account = await billingAccount(server, { aliases: [alias] }, { testClock: { at: CLOCK } });
    await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
    await account.contract({
      startDate: day("2026-01-01"),
      products: [usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.01 })],
    });
    const events = Array.from({ length: 50 }, (_, index) => ({
      ref: `none-${index}`,
      name: "tokens",
      timestamp: "2026-01-10T11:00:00Z",
      customerAlias: alias,
      data: { n: "1000" },
    }));
    // A batch of 50 events, its alerts and threshold billing done: no read of the account's contracts at all (the
    // call's one read of its account, which it makes anyway for its clock, said it bills no thresholds).
    const ingestion = await commandsOf(account.accountId, async () => {
      await account.post("/events", { events }, 200);
      await settled();
    });
    const names = (sent: CommandStartedEvent[]) =>
      sent.map(({ commandName, command }) => `${commandName} ${command[commandName]}`);
    expect(names(ingestion).filter((name) => name.endsWith(" contracts"))).toEqual([]);
    // What the evaluation cost each batch before the gate (the change as ingestion made it, without the flag): the
    // alias's customer and the customer's contracts read, at least 2 commands per batch, now 0.
    const change = {
      accountId: account.accountId,
      testClockAt: new Date(CLOCK),
      kind: "events" as const,
      aliases: [alias],
      eventNames: ["tokens"],
      instants: [new Date("2026-01-10T00:00:00Z")],
    };
    const log = createLogger("silent");
    const ungated = await commandsOf(
      account.accountId,
      () => billThresholdsAfter(server.service.repositories, change, log),
      { ownOnly: true },
    );
    expect(names(ungated)).toEqual(["find customers", "find contracts"]);
    const gated = await commandsOf(
      account.accountId,
      () => billThresholdsAfter(server.service.repositories, { ...change, thresholds: false }, log),
      { ownOnly: true },
    );
    expect(gated).toEqual([]);
    // Measured here: the batch of 50 costs 7 commands naming the account (its ingestion and alerts), was 9.

    // A contract with thresholds (another customer's) marks the account: its next batch is evaluated,
    // 12,000 × 0.01 = 120.00 ≥ 100.00 → a threshold invoice of 120.00.
    const other = await account.newCustomer({ name: "Other Co", aliases: ["thr-some"] });
    const withThresholds = await account.post(
      "/contracts",
      {
        customerId: other,
        name: "Plan",
        startDate: day("2026-01-01"),
        products: [usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.01 })],
        billingThresholds: [{ amount: 100 }],
      },
      201,
    );
    const more = [{ ...events[0], ref: "some-1", customerAlias: "thr-some", data: { n: "12000" } }];
    await account.post("/events", { events: more }, 200);
    await settled();
    const [invoice] = await account.invoices(withThresholds.contract.id);
    expect(invoice).toMatchObject({ status: "FINALIZED", amount: 120 });
    // The flag is the service's own: the account as the API shows it has no such field.
    const shown = await server.rest("GET", `/admin/accounts/${account.accountId}`, { token: ADMIN_TOKEN });
    expect(shown.status).toBe(200);
    expect(shown.body.account).not.toHaveProperty("thresholdBilling");
  });

  it("catches up a lost evaluation: the upkeep worker bills it once, no scheduler (two instances)", async () => {
    // A live account (the upkeep worker sweeps those; a test clock's are its advances'): usage first, 12,000 units,
    // then a contract with thresholds from the cycle's start: no ingestion follows, as if its evaluation had been lost.
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const account = await billingAccount(server, { aliases: ["thr-late"] });
    await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
    const event = { ref: "late-1", name: "tokens", timestamp: now.toISOString(), customerAlias: "thr-late" };
    await account.post("/events", { events: [{ ...event, data: { n: "12000" } }] }, 200);
    await settled();
    const contract = await account.contract({
      startDate: monthStart,
      products: [usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.01 })],
      billingThresholds: [{ amount: 100 }],
    });
    expect(await account.invoices(contract.id)).toEqual([]);

    // Both instances' sweeps at once: 12,000 × 0.01 = 120.00 ≥ 100.00, one threshold invoice of 120.00.
    const log = createLogger("silent");
    const at = new Date();
    const sweeps = await Promise.all(
      [server.service, twin].map(({ repositories }) =>
        sweepThresholds({ repositories, accountId: account.accountId, log }, at),
      ),
    );
    expect(sweeps.flat()).toHaveLength(1);
    const invoices = await account.invoices(contract.id);
    expect(invoices.map((invoice) => [invoice.status, invoice.amount])).toEqual([["FINALIZED", 120]]);
    // Swept again: nothing more to bill (120.00 billed reaches the one threshold already).
    expect(
      await sweepThresholds({ repositories: server.service.repositories, accountId: account.accountId, log }, at),
    ).toEqual([]);

    // The upkeep worker's walk does it, with no billing scheduler on either instance: another customer's 30,000
    // units used before its contract → one tick of the twin's upkeep bills 30,000 × 0.01 = 300.00 on one threshold
    // invoice (the walk takes 5 accounts a tick: this file's accounts with thresholds are fewer), a tick of each
    // instance after it nothing more.
    const other = await account.newCustomer({ name: "Late Two", aliases: ["thr-late-2"] });
    const more = { ...event, ref: "late-2", customerAlias: "thr-late-2", data: { n: "30000" } };
    await account.post("/events", { events: [more] }, 200);
    await settled();
    const second = await account.post(
      "/contracts",
      {
        customerId: other,
        name: "Plan",
        startDate: monthStart,
        products: [usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.01 })],
        billingThresholds: [{ amount: 100 }],
      },
      201,
    );
    expect(await account.invoices(second.contract.id)).toEqual([]);
    await twin.upkeep.tick();
    await Promise.all([twin.upkeep.tick(), server.service.upkeep.tick()]);
    const billed = await account.invoices(second.contract.id);
    expect(billed.map((invoice) => [invoice.status, invoice.amount])).toEqual([["FINALIZED", 300]]);
  });

  it("catches up a test account's lost evaluation at its clock's next advance", async () => {
    // Usage first (20,000 units at 11:00), then the contract with threshold 100.00: no ingestion evaluates it.
    const alias = "thr-clock-late";
    const account = await billingAccount(server, { aliases: [alias] }, { testClock: { at: CLOCK } });
    await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
    const event = { ref: "clock-late-1", name: "tokens", timestamp: "2026-01-10T11:00:00Z", customerAlias: alias };
    await account.post("/events", { events: [{ ...event, data: { n: "20000" } }] }, 200);
    await settled();
    const contract = await account.contract({
      startDate: day("2026-01-01"),
      products: [usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.01 })],
      billingThresholds: [{ amount: 100 }],
    });
    expect(await account.invoices(contract.id)).toEqual([]);
    // The advance to the next day: 20,000 × 0.01 = 200.00 ≥ 100.00 → one threshold invoice of 200.00, made by the
    // advance's due work (its "thresholds" step).
    await advance(account, "2026-01-11T12:00:00Z");
    const invoices = await account.invoices(contract.id);
    expect(invoices.map((invoice) => [invoice.status, invoice.amount])).toEqual([["FINALIZED", 200]]);
    expect(invoices[0].name).toMatch(/\(threshold\)$/);
  });

  it("refuses thresholds that do not increase, naming the field", async () => {
    const account = await billingAccount(server);
    const response = await server.rest("POST", "/contracts", {
      token: account.token,
      body: {
        customerId: account.customerId,
        name: "Plan",
        startDate: day("2026-01-01"),
        billingThresholds: [{ amount: 100 }, { amount: 100 }],
      },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain("billingThresholds.1.amount");
  });
});

/** The threshold invoices the receiver got for an account. */
const reached = (accountId: string) =>
  receiver.received
    .map((request) => JSON.parse(request.body))
    .filter((body) => body.type === "invoice.threshold_reached" && body.data.accountId === accountId)
    .map((body) => body.data);
