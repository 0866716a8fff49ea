import { createLogger, createMetrics, startBillingScheduler } from "@billing/server";
import type { MongoClient } from "mongodb";
import { withMonitoredDatabase } from "../in-process-database.js";
import { formatCount, progress } from "../progress.js";

export interface SchedulerTicksResult {
  engine: string;
  idle: number;
  withWork: number;
  ticks: number;
  /** Every command the scheduler sent over `ticks` ticks (driver command monitoring). */
  commands: number;
  /** Expiries still to write once the ticks ended (0: every account with work was reached). */
  workLeft: number;
}

/** An hour ago: each account's one grant expiry has come. */
const EXPIRED = () => new Date(Date.now() - 3_600_000);

/**
 * The billing scheduler's ticks (BILLING_SCHEDULER) over `idle` accounts with nothing due and `withWork` accounts
 * each with one grant expiry come (a run writes it: its expiration, then its note removed), stored after the idle
 * ones (last in the walk of all accounts). In-process on a database of its own, the scheduler ticking back to back;
 * its commands counted by the driver's command monitoring over as many ticks as a walk of 100 accounts a tick needs
 * to reach every account.
 */
export async function benchSchedulerTicks(idle: number, withWork: number): Promise<SchedulerTicksResult> {
  let commands = 0;
  const watch = (client: MongoClient) => {
    client.on("commandStarted", () => {
      commands += 1;
    });
  };
  return withMonitoredDatabase("scheduler", watch, async (db, repositories, engine) => {
    for (let made = 0; made < idle; made += 1) {
      await repositories.accounts.create(`idle-${made}`);
      if (made % 100 === 99) progress(`scheduler ticks: ${formatCount(made + 1)} / ${formatCount(idle)} idle accounts`);
    }
    for (let made = 0; made < withWork; made += 1) {
      const account = await repositories.accounts.create(`busy-${made}`);
      const customer = await repositories.customers.create(account.id, { name: "Customer" });
      await repositories.creditExpiries.note(account.id, customer.id, EXPIRED());
    }
    const ticks = Math.ceil((idle + withWork) / 100);
    const metrics = createMetrics();
    const ticked = async () => (await metrics.schedulerTicks.get()).values[0]?.value ?? 0;
    commands = 0;
    const settings = { intervalMs: 0, graceMs: 0, draftMs: 0 };
    const scheduler = startBillingScheduler(repositories, settings, createLogger("silent"), metrics);
    while ((await ticked()) < ticks) await new Promise((resolve) => setTimeout(resolve, 5));
    await scheduler.close();
    const sent = commands;
    const workLeft = await db.collection("credit_expiries").countDocuments({});
    return { engine, idle, withWork, ticks: await ticked(), commands: sent, workLeft };
  });
}

export function schedulerTicksMarkdown({ engine, idle, withWork, ticks, commands, workLeft }: SchedulerTicksResult) {
  return [
    `The billing scheduler over ${formatCount(idle)} accounts with nothing due and ${withWork} with a grant expiry ` +
      `come (${engine}, in-process, ticking back to back): ${formatCount(commands)} commands over ${ticks} ticks, ` +
      `**${(commands / ticks).toFixed(1)} per tick**; ` +
      (workLeft === 0 ? "every account with work reached." : "some account with work not reached."),
  ];
}
