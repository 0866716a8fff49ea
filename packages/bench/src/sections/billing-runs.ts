import { MongoClient } from "mongodb";
import { type Api, createBenchAccount } from "../api.js";
import { formatCount, progress } from "../progress.js";
import { startServer } from "../server.js";
import { ratio, runConcurrently } from "../stats.js";

interface RunAnswer {
  run: { contractsBilled: number; invoicesCreated: number; hasMore: boolean };
}

/** One caller's loop: POST /billing-runs at `at` until hasMore is false. */
interface LoopResult {
  calls: number;
  invoices: number;
  /** Contracts the loop's calls looked at (a contract looked at again after a call stopped counts again). */
  contractsLookedAt: number;
}

/** Database commands the server sent during a measurement (the database's own `serverStatus` counters). */
export interface CommandCounts {
  /** find, getMore, aggregate, count. */
  reads: number;
  /** insert, update, delete, findAndModify (a duplicate-key insert included). */
  writes: number;
}

/** The engine alone: `writes` inserts of a small document by one writer, then by two writers at once. */
export interface RawWriters {
  writes: number;
  oneMs: number;
  twoMs: number;
}

export interface BillingRunsResult {
  engine: string;
  contracts: number;
  /** One loop alone over the month-end of `contracts` contracts. */
  alone: { ms: number; loop: LoopResult; commands: CommandCounts };
  /** Two loops at once over the same month-end of another account with as many contracts. */
  together: { ms: number; loops: [LoopResult, LoopResult]; commands: CommandCounts };
  /** alone ms / together ms: how much faster two callers finish (2 would be perfect sharing on idle cores). */
  speedup: number;
  raw: RawWriters;
}

const READS = ["find", "getMore", "aggregate", "count"];
const WRITES = ["insert", "update", "delete", "findAndModify"];

/** Every command the database has answered so far, by name (`serverStatus.metrics.commands`, on both engines). */
async function commandTotals(client: MongoClient): Promise<Map<string, number>> {
  const status = await client.db("admin").command({ serverStatus: 1 });
  const commands = (status.metrics?.commands ?? {}) as Record<string, { total?: number }>;
  return new Map(Object.entries(commands).map(([name, { total }]) => [name, Number(total ?? 0)]));
}

/** The commands sent while `work` ran (the server's background purge adds a few reads and deletes every 10 s). */
async function counted<T>(client: MongoClient, work: () => Promise<T>): Promise<[T, CommandCounts]> {
  const before = await commandTotals(client);
  const result = await work();
  const after = await commandTotals(client);
  const sum = (names: string[]) =>
    names.reduce((total, name) => total + (after.get(name) ?? 0) - (before.get(name) ?? 0), 0);
  return [result, { reads: sum(READS), writes: sum(WRITES) }];
}

/** Inserts of small documents (an invoice's claim is about this size) by one writer, then by two at once. */
async function rawWriters(client: MongoClient, writes: number): Promise<RawWriters> {
  const collection = client.db("bench_raw_writers").collection<{ _id: string; n: number }>("inserts");
  const insert = async (prefix: string, count: number) => {
    for (let n = 0; n < count; n += 1) await collection.insertOne({ _id: `${prefix}-${n}`, n });
  };
  const oneMs = await timedLoops(() => insert("one", writes));
  const twoMs = await timedLoops(() => Promise.all([insert("a", writes / 2), insert("b", writes / 2)]));
  await collection.drop();
  return { writes, oneMs, twoMs };
}

/** A day after January ends: past the server's grace period (BILLING_GRACE_PERIOD, one hour by default). */
const MONTH_END = "2024-02-02T00:00:00Z";

async function loop(api: Api): Promise<LoopResult> {
  const result: LoopResult = { calls: 0, invoices: 0, contractsLookedAt: 0 };
  for (;;) {
    const { run } = await api.call<RunAnswer>("POST", "/billing-runs", { at: MONTH_END });
    result.calls += 1;
    result.invoices += run.invoicesCreated;
    result.contractsLookedAt += run.contractsBilled;
    if (!run.hasMore) return result;
  }
}

/** An account with `contracts` customers of one monthly contract each, schedules moved to their first invoice. */
async function monthEndAccount(url: string, adminToken: string, contracts: number): Promise<Api> {
  const api = await createBenchAccount(url, adminToken);
  await runConcurrently(contracts, 8, async (index) => {
    const { customer } = await api.call<{ customer: { id: string } }>(
      "POST",
      "/customers",
      { name: `c-${index}` },
      201,
    );
    const terms = { units: 1, price: 10 };
    const product = {
      displayName: "Seats",
      commitment: terms,
      scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 },
    };
    await api.call(
      "POST",
      "/contracts",
      { customerId: customer.id, name: "Plan", startDate: "2024-01-01T00:00:00Z", products: [product] },
      201,
    );
    progress(`billing runs: contracts ${formatCount(index + 1)} / ${formatCount(contracts)}`);
  });
  // As the previous month-end's run leaves them: every schedule at its next invoice (Feb 1).
  for (;;) {
    const { run } = await api.call<RunAnswer>("POST", "/billing-runs", { at: "2024-01-15T00:00:00Z" });
    if (!run.hasMore) return api;
  }
}

const timedLoops = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

/**
 * Issue 30: a month-end billed by one POST /billing-runs loop against the same month-end (another account, as many
 * contracts) billed by two loops at once, which split the due contracts by claims. On its own server.
 */
export async function benchBillingRuns(quick: boolean): Promise<BillingRunsResult> {
  const contracts = quick ? 40 : 1000;
  const server = await startServer();
  const client = await MongoClient.connect(server.databaseUri);
  try {
    const single = await monthEndAccount(server.url, server.adminToken, contracts);
    const pair = await monthEndAccount(server.url, server.adminToken, contracts);
    let alone: LoopResult | undefined;
    const [aloneMs, aloneCommands] = await counted(client, () =>
      timedLoops(async () => {
        alone = await loop(single);
      }),
    );
    let loops: [LoopResult, LoopResult] | undefined;
    const [togetherMs, togetherCommands] = await counted(client, () =>
      timedLoops(async () => {
        loops = await Promise.all([loop(pair), loop(pair)]);
      }),
    );
    if (!alone || !loops) throw new Error("a loop did not finish");
    const made = loops[0].invoices + loops[1].invoices;
    if (alone.invoices !== contracts || made !== contracts)
      throw new Error(`expected ${contracts} invoices each time, made ${alone.invoices} alone and ${made} together`);
    return {
      engine: server.engine,
      contracts,
      alone: { ms: aloneMs, loop: alone, commands: aloneCommands },
      together: { ms: togetherMs, loops, commands: togetherCommands },
      speedup: ratio(aloneMs, togetherMs),
      raw: await rawWriters(client, quick ? 400 : 2000),
    };
  } finally {
    await client.close();
    await server.stop();
  }
}

export function billingRunsMarkdown({ engine, contracts, alone, together, speedup, raw }: BillingRunsResult): string[] {
  const row = (name: string, ms: number, result: LoopResult, commands?: CommandCounts) =>
    `| ${name} | ${(ms / 1000).toFixed(1)} | ${result.calls} | ${result.invoices} | ${result.contractsLookedAt} | ` +
    `${commands ? `${formatCount(commands.reads)} | ${formatCount(commands.writes)}` : "〃 | 〃"} |`;
  const perInvoice = (commands: CommandCounts) => ((commands.reads + commands.writes) / contracts).toFixed(1);
  return [
    `Database: ${engine}. ${formatCount(contracts)} customers with one monthly contract each (10.00), billed at ` +
      "their month-end by POST /billing-runs loops (calling again while hasMore).",
    "",
    "| callers | s until all loops end | calls | invoices made | contracts looked at | reads | writes |",
    "|---|---:|---:|---:|---:|---:|---:|",
    row("one loop alone", alone.ms, alone.loop, alone.commands),
    row("two loops at once: first", together.ms, together.loops[0], together.commands),
    row("two loops at once: second", together.ms, together.loops[1]),
    "",
    `Two loops finish in 1/${speedup.toFixed(2)} of the time of one. Database commands per invoice: ` +
      `${perInvoice(alone.commands)} alone, ${perInvoice(together.commands)} with two loops (both loops' together).`,
    `The engine alone: ${formatCount(raw.writes)} inserts of a small document take ` +
      `${(raw.oneMs / 1000).toFixed(1)} s ` +
      `from one writer and ${(raw.twoMs / 1000).toFixed(1)} s from two writers at once (half each): ` +
      `${ratio(raw.oneMs, raw.twoMs).toFixed(2)}× the rate.`,
  ];
}
