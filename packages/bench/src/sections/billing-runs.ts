import { readFileSync } from "node:fs";
import { MAX_EVENTS_PER_BATCH } from "@billing/shared";
import { MongoClient } from "mongodb";
import { type Api, anotherToken, createBenchAccount } from "../api.js";
import { formatCount, progress } from "../progress.js";
import { childPids, commandsSent, DATABASE_NAME, startServer } from "../server.js";
import { ratio, runConcurrently } from "../stats.js";
import {
  type BacklogSize,
  type BillingBacklogResult,
  benchBillingBacklog,
  billingBacklogMarkdown,
} from "./billing-backlog.js";
import { listenForInvoices } from "./month-end-webhooks.js";
import { benchSchedulerTicks, type SchedulerTicksResult, schedulerTicksMarkdown } from "./scheduler-ticks.js";

interface RunAnswer {
  run: { contractsBilled: number; invoicesCreated: number; hasMore: boolean };
}

/** One caller's loop: POST /billing-runs at `at` until hasMore is false. */
interface LoopResult {
  calls: number;
  invoices: number;
  /** Invoices each call made, in order. */
  yields: number[];
  /** Contracts the loop's calls looked at (a contract looked at again after a call stopped counts again). */
  contractsLookedAt: number;
}

/** Database commands during a measurement. */
export interface CommandCounts {
  /** find, getMore, aggregate, count: the database's own `serverStatus` counters, the workers' polls included. */
  reads: number;
  /** insert, update, delete, findAndModify (a duplicate-key insert included), counted as `reads`. */
  writes: number;
  /**
   * The commands the server sent answering calls (its `billing_db_commands_total{origin="request"}`): the loops'
   * alone, as nothing else calls it meanwhile; the workers' background polls are not in it.
   */
  ofCalls: number;
}

/** CPU seconds the server process and its database (its child process) used during a measurement. */
export interface CpuSeconds {
  server: number;
  database: number;
}

/** The kernel's clock ticks per second (`getconf CLK_TCK`): 100 on Linux. */
const CLOCK_TICKS = 100;

/** User and system CPU seconds of a process so far (`/proc/<pid>/stat`, fields 14 and 15). */
function cpuOf(pid: number): number {
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

const cpuNow = (pid: number): CpuSeconds => ({
  server: cpuOf(pid),
  database: childPids(pid).reduce((total, child) => total + cpuOf(child), 0),
});

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
  alone: { ms: number; loop: LoopResult; commands: CommandCounts; cpu: CpuSeconds };
  /** Two loops at once over the same month-end of another account with as many contracts. */
  together: { ms: number; loops: [LoopResult, LoopResult]; commands: CommandCounts; cpu: CpuSeconds };
  /** Four loops at once over the same month-end of a third account (issue 47: their commands within 1.2× of one's). */
  four: { ms: number; loops: LoopResult[]; commands: CommandCounts };
  /**
   * One loop alone over the month-end of as many usage contracts with tax, each customer with a credit grant and one
   * event in the month (issue 47's second case).
   */
  usage: { ms: number; loop: LoopResult; commands: CommandCounts; cpu: CpuSeconds };
  /** alone ms / together ms: how much faster two callers finish (2 would be perfect sharing on idle cores). */
  speedup: number;
  raw: RawWriters;
  /** The scheduler's ticks over many idle accounts and 10 with work (issue 47: bounded per tick, fair). */
  scheduler: SchedulerTicksResult;
  /** A backlog's calls, one loop (issue 47: invoices per call within 1.5× from the first call to the last). */
  backlog: BillingBacklogResult;
}

const READS = ["find", "getMore", "aggregate", "count"];
const WRITES = ["insert", "update", "delete", "findAndModify"];

/** Every command the database has answered so far, by name (`serverStatus.metrics.commands`, on both engines). */
export async function commandTotals(client: MongoClient): Promise<Map<string, number>> {
  const status = await client.db("admin").command({ serverStatus: 1 });
  const commands = (status.metrics?.commands ?? {}) as Record<string, { total?: number }>;
  return new Map(Object.entries(commands).map(([name, { total }]) => [name, Number(total ?? 0)]));
}

/** The commands sent while `work` ran (the server's workers add about 15 a second to the database's counters). */
async function counted<T>(
  client: MongoClient,
  server: { pid: number; url: string },
  work: () => Promise<T>,
): Promise<[T, CommandCounts, CpuSeconds]> {
  const before = await commandTotals(client);
  const ofCallsBefore = await commandsSent(server.url);
  const cpuBefore = cpuNow(server.pid);
  const result = await work();
  const cpuAfter = cpuNow(server.pid);
  const ofCalls = (await commandsSent(server.url)) - ofCallsBefore;
  const after = await commandTotals(client);
  const sum = (names: string[]) =>
    names.reduce((total, name) => total + (after.get(name) ?? 0) - (before.get(name) ?? 0), 0);
  const cpu = { server: cpuAfter.server - cpuBefore.server, database: cpuAfter.database - cpuBefore.database };
  return [result, { reads: sum(READS), writes: sum(WRITES), ofCalls }, cpu];
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

/**
 * The month-ends after it (`--only month-end --usage`: the customers' ledgers read by a run before, and the late-usage
 * look at the month before). The bench stores its events now and bills at past moments, so every invoice it made looks
 * as if its usage came after it (late) unless that usage's `storedAt` is set back to its month: February's month-end
 * is measured as in production (January's usage stored in January: nothing late), March's as the most a look costs
 * (February's usage stored after February's invoices: each priced again).
 */
const LATER_MONTH_ENDS = [
  { month: "February", eventsAt: "2024-02-10T00:00:00Z", at: "2024-03-02T00:00:00Z", usageBefore: "2024-02-01" },
  { month: "March", eventsAt: "2024-03-10T00:00:00Z", at: "2024-04-02T00:00:00Z", usageBefore: undefined },
] as const;
type LaterMonthEnd = (typeof LATER_MONTH_ENDS)[number];

async function loop(api: Api, at = MONTH_END): Promise<LoopResult> {
  const result: LoopResult = { calls: 0, invoices: 0, yields: [], contractsLookedAt: 0 };
  for (;;) {
    const { run } = await api.call<RunAnswer>("POST", "/billing-runs", { at });
    result.calls += 1;
    result.invoices += run.invoicesCreated;
    result.yields.push(run.invoicesCreated);
    result.contractsLookedAt += run.contractsBilled;
    if (!run.hasMore) return result;
  }
}

/** What each customer's contract bills: 10.00 a month, or usage (0.01 a token) with 20 % VAT and 5.00 of credits. */
export type MonthEndKind = "flat" | "usage";

const MONTHLY = { duration: { unit: "MONTH", value: 1 }, billingDay: 1 };

/** The account's meter and tax rate for usage contracts. */
async function usageTerms(api: Api) {
  await api.call(
    "POST",
    "/meters",
    { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" },
    201,
  );
  await api.call("POST", "/tax-rates", { code: "VAT20", name: "VAT 20 %", rate: 20 }, 201);
}

/** A customer's contract (and for usage, its grant and its one event of January: 1,000 tokens). */
async function customerContract(api: Api, kind: MonthEndKind, customerId: string, index: number) {
  const product =
    kind === "flat"
      ? { displayName: "Seats", commitment: { units: 1, price: 10 }, scheduling: MONTHLY }
      : {
          displayName: "Tokens",
          catalogProductId: "tokens",
          scheduling: MONTHLY,
          pricing: { type: "PER_UNIT", price: 0.01 },
        };
  const taxes = kind === "usage" ? { taxRateCodes: ["VAT20"] } : {};
  const contract = { customerId, name: "Plan", startDate: "2024-01-01T00:00:00Z", products: [product], ...taxes };
  await api.call("POST", "/contracts", contract, 201);
  if (kind === "flat") return;
  await api.call(
    "POST",
    "/credits",
    { customerId, amount: 5, type: "Grant", effectiveAt: "2024-01-01T00:00:00Z" },
    201,
  );
  const event = { ref: `t-${index}`, name: "tokens", customerAlias: `c-${index}`, timestamp: "2024-01-10T00:00:00Z" };
  await api.call("POST", "/events", { events: [{ ...event, data: { n: "1000" } }] });
}

/** An account with `contracts` customers of one monthly contract each, schedules moved to their first invoice. */
async function monthEndAccount(url: string, adminToken: string, contracts: number, kind: MonthEndKind): Promise<Api> {
  const api = await createBenchAccount(url, adminToken);
  if (kind === "usage") await usageTerms(api);
  // Two at a time: the token's calls in flight (MAX_CALLS_IN_FLIGHT_PER_TOKEN); more would only wait at the server,
  // and past its 2 s wait be refused (at 6,000 contracts and more on FerretDB, where each call's reads grow).
  await runConcurrently(contracts, 2, async (index) => {
    const { customer } = await api.call<{ customer: { id: string } }>(
      "POST",
      "/customers",
      { name: `c-${index}`, aliases: [`c-${index}`] },
      201,
    );
    await customerContract(api, kind, customer.id, index);
    progress(`billing runs: ${kind} contracts ${formatCount(index + 1)} / ${formatCount(contracts)}`);
  });
  // As the previous month-end's run leaves them: every schedule at its next invoice (Feb 1).
  for (;;) {
    const { run } = await api.call<RunAnswer>("POST", "/billing-runs", { at: "2024-01-15T00:00:00Z" });
    if (!run.hasMore) return api;
  }
}

/**
 * A usage month-end after the one measured, by one loop: each customer's event of the month (1,000 tokens again, as
 * many a call as POST /events takes), its usage before `usageBefore` set as stored in its month, then the loop,
 * counted as the first (issue 47: a run reads the ledgers a run read before, and the late-usage looks, together).
 */
async function laterMonthEnd(
  client: MongoClient,
  server: { pid: number; url: string },
  api: Api,
  contracts: number,
  { month, eventsAt, at, usageBefore }: LaterMonthEnd,
) {
  for (let from = 0; from < contracts; from += MAX_EVENTS_PER_BATCH) {
    const events = Array.from({ length: Math.min(MAX_EVENTS_PER_BATCH, contracts - from) }, (_, offset) => {
      const index = from + offset;
      const alias = `c-${index}`;
      return {
        ref: `${month}-${index}`,
        name: "tokens",
        customerAlias: alias,
        timestamp: eventsAt,
        data: { n: "1000" },
      };
    });
    await api.call("POST", "/events", { events });
  }
  if (usageBefore) {
    // As in production: the month before's usage stored in that month, before its invoices were made.
    const storedAt = new Date(`${usageBefore}T00:00:00Z`);
    const rollups = client.db(DATABASE_NAME).collection("usage_rollups");
    await rollups.updateMany({ day: { $lt: usageBefore } }, { $set: { storedAt } });
  }
  let result: LoopResult | undefined;
  const [ms, commands, cpu] = await counted(client, server, () =>
    timedLoops(async () => {
      result = await loop(api, at);
    }),
  );
  if (result?.invoices !== contracts) throw new Error(`expected ${contracts} invoices, made ${result?.invoices}`);
  return { month, late: !usageBefore, ms, loop: result, commands, cpu };
}

const timedLoops = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

/**
 * `callers` loops at once over the month-end of `contracts` contracts, on a fresh server and database of its own;
 * `webhooks`: with an endpoint taking `invoice.created`, whose deliveries are then waited for and counted.
 */
async function measureOnItsOwnServer(
  contracts: number,
  callers: number,
  rawWrites: number,
  kind: MonthEndKind,
  webhooks = false,
  laterMonths = false,
) {
  const server = await startServer();
  const client = await MongoClient.connect(server.databaseUri);
  try {
    const account = await monthEndAccount(server.url, server.adminToken, contracts, kind);
    const listener = webhooks ? await listenForInvoices(account, server.url) : undefined;
    // Two loops share the account's token (two calls in flight per token); more take tokens of their own.
    const apis = await Promise.all(
      Array.from({ length: callers }, (_, index) =>
        index < 2 ? account : anotherToken(server.url, server.adminToken, account),
      ),
    );
    let loops: LoopResult[] = [];
    const [ms, commands, cpu] = await counted(client, server, () =>
      timedLoops(async () => {
        loops = await Promise.all(apis.map((api) => loop(api)));
      }),
    );
    const made = loops.reduce((total, result) => total + result.invoices, 0);
    if (made !== contracts) throw new Error(`expected ${contracts} invoices from ${callers} loops, made ${made}`);
    const deliveries = await listener?.delivered(contracts);
    await listener?.close();
    const raw = await rawWriters(client, rawWrites);
    const later = [];
    if (laterMonths)
      for (const month of LATER_MONTH_ENDS) later.push(await laterMonthEnd(client, server, account, contracts, month));
    return { engine: server.engine, ms, loops, commands, cpu, raw, deliveries, later };
  } finally {
    await client.close();
    await server.stop();
  }
}

/**
 * Issue 30: a month-end billed by one POST /billing-runs loop against the same month-end billed by two loops at once,
 * which split the due contracts by claims. Each on a fresh server and database of its own: on FerretDB every read
 * decodes whole collections, so a second month-end billed beside the first's invoices would cost more for that alone.
 */
export async function benchBillingRuns(
  contracts: number,
  rawWrites: number,
  schedulerIdleAccounts: number,
  backlogSize: BacklogSize,
): Promise<BillingRunsResult> {
  const one = await measureOnItsOwnServer(contracts, 1, rawWrites, "flat");
  const two = await measureOnItsOwnServer(contracts, 2, rawWrites, "flat");
  const four = await measureOnItsOwnServer(contracts, 4, 0, "flat");
  const usage = await measureOnItsOwnServer(contracts, 1, 0, "usage");
  const scheduler = await benchSchedulerTicks(schedulerIdleAccounts, 10);
  const backlog = await benchBillingBacklog(backlogSize);
  const [alone] = one.loops;
  const [first, second] = two.loops;
  const [usageLoop] = usage.loops;
  if (!alone || !first || !second || !usageLoop) throw new Error("a loop did not finish");
  return {
    engine: one.engine,
    contracts,
    alone: { ms: one.ms, loop: alone, commands: one.commands, cpu: one.cpu },
    together: { ms: two.ms, loops: [first, second], commands: two.commands, cpu: two.cpu },
    four: { ms: four.ms, loops: four.loops, commands: four.commands },
    usage: { ms: usage.ms, loop: usageLoop, commands: usage.commands, cpu: usage.cpu },
    speedup: ratio(one.ms, two.ms),
    raw: two.raw,
    scheduler,
    backlog,
  };
}

/**
 * One month-end alone (`--only month-end`): `loops` loops at once over `contracts` contracts of `kind`, on a server of
 * its own — a phase of section 13 without the others, to measure one case (four loops, or a larger N) quickly.
 */
export async function benchMonthEnd(contracts: number, loops: number, kind: MonthEndKind, webhooks: boolean) {
  const measured = await measureOnItsOwnServer(contracts, loops, 0, kind, webhooks, kind === "usage");
  const { engine, ms, loops: results, commands, cpu, deliveries, later } = measured;
  return { engine, contracts, loops: results, kind, ms, commands, cpu, deliveries, later };
}

export function monthEndMarkdown({
  engine,
  contracts,
  loops,
  kind,
  ms,
  commands,
  cpu,
  deliveries,
  later,
}: Awaited<ReturnType<typeof benchMonthEnd>>): string[] {
  const yields = loops.flatMap((loop) => loop.yields);
  const zero = yields.filter((made) => made === 0).length;
  return [
    `Database: ${engine}. ${formatCount(contracts)} ${kind} contracts billed by ${loops.length} loop(s) at once: ` +
      `${(ms / 1000).toFixed(1)} s, ${yields.length} calls (${zero} made no invoice), invoices per call ` +
      `${loops.map((loop) => loop.yields.join(" ")).join(" | ")}.`,
    `Commands answering the calls ${formatCount(commands.ofCalls)}: ${(commands.ofCalls / contracts).toFixed(2)} per ` +
      `invoice (all the database answered: ${formatCount(commands.reads)} reads, ${formatCount(commands.writes)} ` +
      `writes). CPU seconds, server + database: ${cpuText(cpu)}: the server's ` +
      `${((cpu.server * 1000) / contracts).toFixed(2)} ms per invoice.`,
    ...(deliveries
      ? [
          `The webhook worker delivered ${formatCount(deliveries.delivered)} invoice.created messages ` +
            `about ${formatCount(deliveries.invoices)} invoices (${deliveries.redeliveries} again, ` +
            `${deliveries.unreadable} unreadable, ${deliveries.badSignatures} badly signed), the last ` +
            `${(deliveries.msAfterLoops / 1000).toFixed(1)} s after the loops ended, with ` +
            `${formatCount(deliveries.commands)} database commands from the loops' start: ` +
            `${(deliveries.commands / Math.max(1, deliveries.delivered)).toFixed(2)} per message.`,
        ]
      : []),
    ...later.map(
      (next) =>
        `${next.month}'s month-end (each customer's event, one loop; ` +
        `${next.late ? "every invoice before looking late: each priced again" : "nothing late, as in production"}): ` +
        `${(next.ms / 1000).toFixed(1)} s, ${next.loop.calls} calls, ${formatCount(next.commands.ofCalls)} commands ` +
        `answering them: ${(next.commands.ofCalls / contracts).toFixed(2)} per invoice; the server's ` +
        `${((next.cpu.server * 1000) / contracts).toFixed(2)} ms per invoice.`,
    ),
  ];
}

const cpuText = ({ server, database }: CpuSeconds) => `${server.toFixed(1)} + ${database.toFixed(1)}`;

export function billingRunsMarkdown(result: BillingRunsResult): string[] {
  const { engine, contracts, alone, together, four, usage, speedup, raw, scheduler, backlog } = result;
  const row = (name: string, ms: number, result: LoopResult, commands?: CommandCounts) =>
    `| ${name} | ${(ms / 1000).toFixed(1)} | ${result.calls} | ${result.invoices} | ${result.contractsLookedAt} | ` +
    `${commands ? `${formatCount(commands.reads)} | ${formatCount(commands.writes)}` : "〃 | 〃"} |`;
  const perInvoice = (commands: CommandCounts) =>
    `${(commands.ofCalls / contracts).toFixed(1)} (${((commands.reads + commands.writes) / contracts).toFixed(1)})`;
  const serverMsPerInvoice = (cpu: CpuSeconds) => ((cpu.server * 1000) / contracts).toFixed(1);
  return [
    `Database: ${engine}. ${formatCount(contracts)} customers with one monthly contract each (10.00), billed at ` +
      "their month-end by POST /billing-runs loops (calling again while hasMore).",
    "",
    "| callers | s until all loops end | calls | invoices made | contracts looked at | reads | writes |",
    "|---|---:|---:|---:|---:|---:|---:|",
    row("one loop alone", alone.ms, alone.loop, alone.commands),
    row("two loops at once: first", together.ms, together.loops[0], together.commands),
    row("two loops at once: second", together.ms, together.loops[1]),
    ...four.loops.map((loop, index) =>
      row(`four loops at once: ${index + 1}`, four.ms, loop, index === 0 ? four.commands : undefined),
    ),
    "",
    `Two loops finish in 1/${speedup.toFixed(2)} of the time of one. Database commands per invoice: ` +
      `${perInvoice(alone.commands)} alone, ${perInvoice(together.commands)} with two loops, ` +
      `${perInvoice(four.commands)} with four (all loops' together); each sent answering the calls (in brackets: ` +
      "all the database answered meanwhile, the workers' polls included). The calls' commands of two loops are " +
      `${ratio(together.commands.ofCalls, alone.commands.ofCalls).toFixed(2)}× one loop's, of four ` +
      `${ratio(four.commands.ofCalls, alone.commands.ofCalls).toFixed(2)}× (issue 47: ≤ 1.2×).`,
    `CPU seconds used, server + database: ${cpuText(alone.cpu)} alone, ${cpuText(together.cpu)} with two loops: ` +
      `the server's own ${serverMsPerInvoice(alone.cpu)} ms per invoice alone.`,
    `The same month-end of usage contracts (0.01 a token, 1,000 tokens each, 20 % VAT, a 5.00 credit grant each), ` +
      `one loop: ${(usage.ms / 1000).toFixed(1)} s, ${usage.loop.calls} calls, ` +
      `${perInvoice(usage.commands)} commands per invoice (${formatCount(usage.commands.reads)} reads, ` +
      `${formatCount(usage.commands.writes)} writes), CPU ${cpuText(usage.cpu)} s ` +
      `(the server's ${serverMsPerInvoice(usage.cpu)} ms per invoice).`,
    `The engine alone: ${formatCount(raw.writes)} inserts of a small document take ` +
      `${(raw.oneMs / 1000).toFixed(1)} s ` +
      `from one writer and ${(raw.twoMs / 1000).toFixed(1)} s from two writers at once (half each): ` +
      `${ratio(raw.oneMs, raw.twoMs).toFixed(2)}× the rate.`,
    ...schedulerTicksMarkdown(scheduler),
    ...billingBacklogMarkdown(backlog),
  ];
}
