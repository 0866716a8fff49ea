import { type CommandStartedEvent, MongoClient } from "mongodb";
import { describe, expect, inject, it } from "vitest";
import type { RunningService } from "../src/app.js";
import type { AccountsPage } from "../src/db/accounts-holding.js";
import { createLogger } from "../src/logger.js";
import { createMetrics } from "../src/observability/metrics.js";
import { createRepositories } from "../src/repositories/index.js";
import { mergeWorkPages, type WorkSource } from "../src/services/billing/accounts-with-work.js";
import { RUN_LIMITS } from "../src/services/billing/run.js";
import { accountsOfTick, billingTicks } from "../src/services/billing/scheduler.js";
import { billingAccount, committed, cyclesOf, day } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { parseMetrics, sampleValue } from "./support/metrics.js";
import { startTwinService } from "./support/server.js";

/** The billing scheduler (BILLING_SCHEDULER; docs/decisions.md, "Billing scheduler"). */
const server = useTestServer();

/** Short enough for a test to see many ticks; each tick still does one bounded run call per account. */
const TINY_INTERVAL_MS = 50;

async function schedulerTicks(service: RunningService) {
  const response = await fetch(`${service.url}/metrics`);
  const samples = parseMetrics(await response.text());
  return {
    ticks: sampleValue(samples, "billing_scheduler_ticks_total"),
    lastTick: sampleValue(samples, "billing_scheduler_last_tick_seconds"),
  };
}

/** Resolves once `service` has ended `count` more ticks than it had (every tick reached a run call per account). */
async function moreTicks(service: RunningService, count: number) {
  const { ticks: from } = await schedulerTicks(service);
  while ((await schedulerTicks(service)).ticks < from + count) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("accounts of a tick", () => {
  it("puts the accounts left unfinished first, at most half the tick, then the walk's page, each once", () => {
    expect(accountsOfTick(["a", "b"], ["c", "a", "d"], 4)).toEqual(["a", "b", "c", "d"]);
    // Four unfinished accounts take two of the four places: the walk still moves on by two.
    expect(accountsOfTick(["a", "b", "c", "d"], ["e", "f"], 4)).toEqual(["a", "b", "e", "f"]);
    expect(accountsOfTick([], ["e", "f"], 4)).toEqual(["e", "f"]);
  });
});

describe("the accounts with work of a tick", () => {
  it("are those every source's page covers, in id order, each with the sources it has work in", () => {
    const page = mergeWorkPages(
      [
        ["schedules", { ids: ["a", "b"], complete: false }],
        ["invoices", { ids: ["a", "c"], complete: true }],
      ],
      2,
    );
    // Schedules may hold accounts past b not read: c is not known there, so the page ends at b (c comes next tick).
    expect([...page.accounts]).toEqual([
      ["a", new Set(["schedules", "invoices"])],
      ["b", new Set(["schedules"])],
    ]);
    expect(page.coveredTo).toBe("b");
  });

  it("end at the tick's size when every page is read to its end, and start again from the first once all fit", () => {
    const pages = (complete: boolean): Parameters<typeof mergeWorkPages>[0] => [
      ["schedules", { ids: ["a", "c"], complete }],
      ["failures", { ids: ["b", "d"], complete: true }],
    ];
    const cut = mergeWorkPages(pages(true), 3);
    expect([...cut.accounts.keys()]).toEqual(["a", "b", "c"]);
    expect(cut.coveredTo).toBe("c");
    const all = mergeWorkPages(pages(true), 4);
    expect([...all.accounts.keys()]).toEqual(["a", "b", "c", "d"]);
    expect(all.coveredTo).toBeUndefined();
  });

  it("reach every account with work once per round of its pages: none starved, none twice", () => {
    // Three sources over 40 accounts (ids as text in id order), some accounts in several, 30 with work in all.
    const ids = Array.from({ length: 40 }, (_, index) => String(index).padStart(2, "0"));
    const held: [WorkSource, string[]][] = [
      ["schedules", ids.filter((_, index) => index % 2 === 0)],
      ["invoices", ids.filter((_, index) => index % 3 === 0)],
      ["failures", ids.filter((_, index) => index % 5 === 0)],
    ];
    const withWork = new Set(held.flatMap(([, of]) => of));
    // As db/accounts-holding.ts reads a source: up to `size` accounts after the cursor, complete when fewer.
    const look = (of: string[], after: string | undefined, size: number) => {
      const past = of.filter((id) => after === undefined || id > after);
      return { ids: past.slice(0, size), complete: past.length < size };
    };
    const SIZE = 4;
    const rounds: string[][] = [[]];
    const ticksOfRound = [0];
    let cursor: string | undefined;
    for (let tick = 0; tick < 30; tick += 1) {
      const page = mergeWorkPages(
        held.map(([source, of]): [WorkSource, AccountsPage] => [source, look(of, cursor, SIZE)]),
        SIZE,
      );
      if (page.accounts.size > 0) ticksOfRound.push((ticksOfRound.pop() ?? 0) + 1);
      rounds.at(-1)?.push(...page.accounts.keys());
      cursor = page.coveredTo;
      if (cursor === undefined) {
        rounds.push([]);
        ticksOfRound.push(0);
      }
    }
    const [first, second] = rounds;
    // Each round calls every account with work once, in id order, a full page a tick: 30 in 8 ticks.
    expect(first).toEqual([...withWork].sort());
    expect(second).toEqual(first);
    expect(ticksOfRound.slice(0, 2)).toEqual([8, 8]);
    expect(withWork.size).toBe(30);
  });
});

describe("a tick over many accounts", () => {
  const own = useTestServer();
  const IDLE = 100;

  it("finds the one account with work among 100 idle ones in six reads, and calls the run for it alone", async () => {
    const idle = await Promise.all(Array.from({ length: IDLE }, () => own.newAccount()));
    const account = await billingAccount(own);
    // One monthly cycle, Jan 2024, long due: 10 seats at 99.99 = 999.90.
    await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      endDate: "2024-02-01T00:00:00Z",
      status: "Expired",
      products: [committed(10, 99.99)],
    });
    // The scheduler's ticks on a client of their own, whose commands are counted (the upkeep walk left out).
    const client = await MongoClient.connect(inject("mongodbUri"), { monitorCommands: true });
    const commands: CommandStartedEvent[] = [];
    client.on("commandStarted", (event) => commands.push(event));
    try {
      const repositories = createRepositories(client.db(own.service.db.databaseName));
      const settings = { graceMs: 0, draftMs: 0 };
      const ticks = billingTicks(repositories, settings, createLogger("silent"), createMetrics(), { upkeepPerTick: 0 });
      const first = await ticks.tick();
      expect(first).toMatchObject({ accounts: 1, invoicesCreated: 1, unfinished: 0 });
      const named = JSON.stringify(commands.map(({ command }) => command));
      expect(idle.filter(({ accountId }) => named.includes(accountId))).toEqual([]);
      expect((await account.allInvoices()).map((invoice) => invoice.amount)).toEqual([999.9]);
      // A call may leave its schedule due once more (a moment of the contract already past, for the next call to see);
      // then nothing is due anywhere.
      let from = commands.length;
      for (let tick = 0; tick < 3 && (await ticks.tick()).accounts > 0; tick += 1) from = commands.length;
      // An idle tick, whatever the number of accounts: the six looks for work, then the usage rollups' own four reads.
      const idleTick = commands.slice(from).map(({ commandName, command }) => `${commandName} ${command[commandName]}`);
      // In any order: the looks are sent at once.
      expect(idleTick.sort()).toEqual([
        "find billingFailures",
        "find billingPendingPayments",
        "find billingSchedules",
        "find credit_expiries",
        "find credit_recurrences",
        "find event_batches",
        "find event_rollup_migrations",
        "find invoices",
        "find usage_rollup_widenings",
        "find usage_rollups",
      ]);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("a tick's call for an account another call is billing", () => {
  // A database of its own: the tick bills every account with work in it.
  const own = useTestServer();

  it("waits for the claims within its time budget only, and leaves the account to the next tick", async () => {
    const account = await billingAccount(own);
    const held = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 10)] });
    // A run in January moves the schedule to its first invoice, Feb 1; then another call (over REST) holds it.
    await account.run("2024-01-15T00:00:00Z");
    const expiresAt = new Date(Date.now() + 60_000);
    const claim = { _id: held.id, accountId: account.accountId, holder: "another call", at: new Date(), expiresAt };
    await own.service.db.collection<typeof claim>("billingClaims").insertOne(claim);
    const repositories = createRepositories(own.service.db);
    const ticks = billingTicks(repositories, { graceMs: 0, draftMs: 0 }, createLogger("silent"), createMetrics(), {
      upkeepPerTick: 0,
    });
    const started = Date.now();
    const tick = await ticks.tick();
    // A call over REST would wait for the holder up to 10 s (RUN_LIMITS.holdersWaitMs); a tick serves every account.
    expect(Date.now() - started).toBeLessThan(RUN_LIMITS.holdersWaitMs);
    expect(tick).toMatchObject({ invoicesCreated: 0, unfinished: 1 });
    expect(await account.invoices(held.id)).toEqual([]);
  });
});

describe("the billing scheduler", () => {
  it("is off in the test harness: nothing is billed until a run is asked for", async () => {
    const account = await billingAccount(server);
    await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(1, 5)] });
    expect(await schedulerTicks(server.service)).toEqual({ ticks: 0, lastTick: 0 });
    expect(await account.allInvoices()).toEqual([]);
  });

  it("on two instances of one database, bills every cycle due once, and /metrics shows each one's ticks", async () => {
    const account = await billingAccount(server);
    // Three monthly cycles, Jan to Mar 2024, long due: 10 seats at 99.99 = 999.90 each.
    const contract = await account.contract({
      startDate: "2024-01-01T00:00:00Z",
      endDate: "2024-04-01T00:00:00Z",
      status: "Expired",
      products: [committed(10, 99.99)],
    });
    const instances = await Promise.all(
      [1, 2].map(() => startTwinService(server, { billingScheduler: { intervalMs: TINY_INTERVAL_MS } })),
    );
    try {
      while ((await account.invoices(contract.id)).length < 3) await new Promise((resolve) => setTimeout(resolve, 50));
      // Both go on ticking over the same account: each has run its call again, and nothing more is made.
      await Promise.all(instances.map((instance) => moreTicks(instance, 3)));
      const invoices = await account.invoices(contract.id);
      expect(cyclesOf(invoices).sort()).toEqual([
        [day("2024-01-01"), day("2024-02-01")],
        [day("2024-02-01"), day("2024-03-01")],
        [day("2024-03-01"), day("2024-04-01")],
      ]);
      expect(invoices.map((invoice) => invoice.amount)).toEqual([999.9, 999.9, 999.9]);
      // The runs that made them are in the audit log as the scheduler's, naming each invoice once.
      const log = await server.rest("GET", "/audit-log?actor=scheduler&limit=100", { token: account.token });
      const named = log.body.entries.flatMap((entry: any) => entry.references.map((ref: { id: string }) => ref.id));
      expect(named.sort()).toEqual(invoices.map((invoice) => invoice.id).sort());
      expect(new Set(log.body.entries.map((entry: any) => entry.action))).toEqual(new Set(["billing.run"]));
      for (const instance of instances) {
        const { ticks, lastTick } = await schedulerTicks(instance);
        expect(ticks).toBeGreaterThanOrEqual(3);
        expect(lastTick).toBeGreaterThan(Date.UTC(2026, 0, 1) / 1000);
      }
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
  }, 120_000);
});
