import { describe, expect, it } from "vitest";
import type { RunningService } from "../src/app.js";
import { accountsOfTick } from "../src/services/billing/scheduler.js";
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
