import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** One ingestion phase: events are sent by `concurrency` parallel callers until `upTo` events are stored. */
export interface IngestPhase {
  concurrency: number;
  upTo: number;
}

export interface Sizes {
  customers: number;
  /** Section 16's synthetic account as a share of 10,000,000 events, 1,000,000 customers and invoices. */
  shardScale: number;
  /** Ingestion phases, in order; the last one's `upTo` is the number of events stored. */
  ingestPhases: IngestPhase[];
  /** Stored-event counts at which ingestion pauses and the event queries are timed. */
  queryCheckpoints: number[];
  /** Measurement upserts are timed at each of these concurrencies. */
  measurementConcurrencies: number[];
  /** Contracts stored for deep pagination; `total` is also timed at a tenth of it. */
  contracts: number;
  /** The deep page compared with page 1 (pages of 100). */
  deepPage: number;
  /** Minimum and target wall time of each timed series, in seconds. */
  seriesSeconds: number;
  /** Customers billed from event-priced usage, and each one's events in the billed month. */
  usageCustomers: number;
  usageEventsPerCustomer: number;
  /** Rounds of `POST /customers` for an account without and one with a webhook endpoint (one call of each). */
  webhookRounds: number;
  /** Section 6: how long the server idles after the ingestion before its memory is read again. */
  memoryIdleSeconds: number;
  /** Section 7: the burst's calls (its limit is half of them). */
  rateLimitBurst: number;
  /** Section 10: rounds (each the victim alone and under attack) and the victim's reads per phase. */
  fairnessRounds: number;
  fairnessReads: number;
  /** Section 12: the events in the month of each of its two customers (multiples of 1,000). */
  rollupEvents: number[];
  /** Section 13: the month-end's contracts, and the engine's raw inserts it is compared with. */
  billingRunContracts: number;
  billingRunRawWrites: number;
  /** Section 13: a backlog of monthly contracts started `since`, billed by one loop (its calls' yields compared). */
  billingBacklog: { contracts: number; since: string };
  /** Section 13: accounts with nothing due among which the billing scheduler's ticks find the few with work. */
  schedulerIdleAccounts: number;
  /** Section 17: reservations made one after another, their commands counted. */
  reservations: number;
  /** Section 14: the customers of each account whose list total is read (multiples of 1,000). */
  totalsCustomers: number[];
  /** Section 18: the invoices of each account whose reports' reads are counted. */
  reportInvoices: number[];
  /** Section 19: the events exported (each N on a server of its own) while the server's memory is sampled. */
  exportEvents: number[];
  /**
   * Section 15: a simulation of `products` GRADUATED products of `tiers` tiers (an event of each every
   * `eventEveryDays` days over two years) at two numbers of monthly cycles, `rounds` times each, and another
   * account's `victimReads` reads a phase, alone and during simulations, in `rounds` rounds.
   */
  simulation: {
    products: number;
    tiers: number;
    cycles: [number, number];
    eventEveryDays: number;
    rounds: number;
    victimReads: number;
  };
}

const FULL: Sizes = {
  customers: 1000,
  shardScale: 1,
  ingestPhases: [
    { concurrency: 1, upTo: 100_000 },
    { concurrency: 4, upTo: 400_000 },
    { concurrency: 16, upTo: 1_000_000 },
  ],
  queryCheckpoints: [10_000, 100_000, 1_000_000],
  measurementConcurrencies: [1, 16, 64],
  contracts: 100_000,
  deepPage: 1000,
  seriesSeconds: 20,
  usageCustomers: 50,
  usageEventsPerCustomer: 1000,
  webhookRounds: 1000,
  memoryIdleSeconds: 15,
  rateLimitBurst: 1000,
  fairnessRounds: 12,
  fairnessReads: 500,
  rollupEvents: [1_000, 100_000],
  billingRunContracts: 1000,
  // 1,028 invoices: the yield of its calls shows what grows with the invoices stored.
  billingBacklog: { contracts: 4, since: "2005-06-01T00:00:00Z" },
  reservations: 500,
  billingRunRawWrites: 2000,
  schedulerIdleAccounts: 10_000,
  totalsCustomers: [1_000, 10_000, 100_000],
  reportInvoices: [10_000, 100_000],
  exportEvents: [100_000, 300_000],
  simulation: { products: 100, tiers: 10, cycles: [6, 23], eventEveryDays: 14, rounds: 3, victimReads: 300 },
};

/** A few minutes: the same sections at smaller sizes. */
const QUICK: Sizes = {
  customers: 1000,
  shardScale: 0.1,
  ingestPhases: [
    { concurrency: 1, upTo: 10_000 },
    { concurrency: 4, upTo: 20_000 },
    { concurrency: 16, upTo: 30_000 },
  ],
  queryCheckpoints: [10_000, 30_000],
  measurementConcurrencies: [1, 16, 64],
  contracts: 10_000,
  deepPage: 100,
  seriesSeconds: 5,
  usageCustomers: 20,
  usageEventsPerCustomer: 200,
  webhookRounds: 200,
  memoryIdleSeconds: 15,
  rateLimitBurst: 200,
  fairnessRounds: 6,
  fairnessReads: 300,
  rollupEvents: [1_000, 100_000],
  billingRunContracts: 40,
  // 356 invoices, as issue 47 measured it.
  billingBacklog: { contracts: 2, since: "2012-01-01T00:00:00Z" },
  reservations: 100,
  billingRunRawWrites: 400,
  schedulerIdleAccounts: 1000,
  totalsCustomers: [1_000, 10_000, 100_000],
  reportInvoices: [1_000, 10_000],
  exportEvents: [10_000, 30_000],
  simulation: { products: 100, tiers: 10, cycles: [6, 23], eventEveryDays: 30, rounds: 2, victimReads: 200 },
};

/**
 * CI's check that every section still runs to its end (under two minutes here): the same code paths at tiny sizes,
 * its figures meaningless. It keeps what made sections fail before: the measurements' concurrency of 64, series
 * crossing a window's minute (section 7 holds one window), the ingestion's check of the stored shape.
 */
const SMOKE: Sizes = {
  customers: 64,
  shardScale: 0.001,
  ingestPhases: [
    { concurrency: 1, upTo: 1_000 },
    { concurrency: 4, upTo: 2_000 },
    { concurrency: 16, upTo: 3_000 },
  ],
  // Each checkpoint's one-hour windows hold 1,000 events: at least one whole hour must be stored.
  queryCheckpoints: [1_000, 2_000],
  // 64 above the instance's default cap of 16 calls in flight: the run must raise it (main.ts).
  measurementConcurrencies: [1, 64],
  contracts: 500,
  deepPage: 3,
  seriesSeconds: 0.25,
  usageCustomers: 3,
  usageEventsPerCustomer: 20,
  webhookRounds: 5,
  memoryIdleSeconds: 1,
  rateLimitBurst: 32,
  fairnessRounds: 1,
  fairnessReads: 20,
  rollupEvents: [1_000],
  billingRunContracts: 4,
  billingBacklog: { contracts: 2, since: "2025-01-01T00:00:00Z" },
  reservations: 10,
  billingRunRawWrites: 20,
  schedulerIdleAccounts: 50,
  totalsCustomers: [1_000, 2_000],
  // One size: closing its 69 months takes about 8 s on FerretDB, what the smoke run can spare.
  reportInvoices: [240],
  exportEvents: [1_000],
  simulation: { products: 4, tiers: 3, cycles: [2, 4], eventEveryDays: 30, rounds: 1, victimReads: 20 },
};

export interface BenchOptions {
  mode: "full" | "quick" | "smoke";
  sizes: Sizes;
  /** Also write the figures as JSON here. */
  jsonPath: string | undefined;
  /**
   * The markdown report; its generated part sits between markers, the rest is kept. Git-ignored `.bench/` unless
   * `--write-docs` or `--doc` asks otherwise: a run on a busy laptop must not rewrite the published figures unasked.
   */
  docPath: string;
  /** Free text for the report: what else ran on the machine. */
  note: string | undefined;
  /** `--contracts N`: section 13's month-end size instead of its default (1,000; 40 with --quick; 4 with --smoke). */
  billingRunContracts: number | undefined;
  /** `--events N,N`: section 19's event counts instead of its sizes'. */
  exportEvents: number[] | undefined;
  /**
   * `--only month-end`: its loops at once (`--loops K`, default 1), contracts (`--usage`: usage, then the two
   * month-ends after it, else flat), and
   * whether an endpoint takes its `invoice.created` messages (`--webhooks`).
   */
  monthEnd: { loops: number; kind: "flat" | "usage"; webhooks: boolean };
  /** `fairness`: only section 10, printed and not written to the report (which needs every section). */
  only:
    | "fairness"
    | "documents"
    | "rollups"
    | "rate-limits"
    | "billing-runs"
    | "billing-backlog"
    | "month-end"
    | "totals"
    | "reports"
    | "simulate"
    | "shard-placement"
    | "reservations"
    | "exports"
    | undefined;
}

/** Where a run writes its report when not asked to publish it (git-ignored). */
export const SCRATCH_DOC = `${REPO_ROOT}.bench/benchmarks.md`;
const PUBLISHED_DOC = `${REPO_ROOT}docs/benchmarks.md`;

export const USAGE = `Usage: pnpm bench [--quick | --smoke] [--write-docs | --doc PATH] [--json PATH] [--note TEXT]
                   [--only fairness | --only documents | --only rollups | --only rate-limits
                    | --only billing-runs [--contracts N] | --only billing-backlog
                    | --only month-end [--contracts N] [--loops K] [--usage] [--webhooks] | --only totals
                    | --only reports
                    | --only simulate | --only shard-placement | --only reservations | --only exports [--events N,N]]
  --quick          the same sections at smaller sizes (a few minutes)
  --smoke          every section (1 to 19) at tiny sizes, to see that each runs to its end (CI; under two
                   minutes); prints each section's time, exits 1 if any failed; its figures mean nothing
  --write-docs     update the published report, docs/benchmarks.md
  --doc PATH       the markdown report to update (default .bench/benchmarks.md, git-ignored)
  --json PATH      also write the figures as JSON
  --note TEXT      recorded in the report, e.g. what else was running
  --only fairness  section 10 alone, printed only (the report keeps its last full run)
  --only documents section 11 alone, printed only
  --only rollups   section 12 alone (usage reads from rollups, ingestion's cost), printed only
  --only rate-limits  section 7 alone (the limiter's writes per call against a plain read), printed only
  --only billing-runs  section 13 alone (a month-end billed by one run loop vs two at once), printed only
  --only billing-backlog  section 13's backlog alone (its calls' yields: invoices per call), printed only
  --only month-end  one of section 13's month-ends alone: K loops at once (default 1) over N flat contracts (--usage:
                   usage contracts, then their next two month-ends by one loop: nothing late, then every invoice
                   before priced again), its calls' yields, commands and server CPU
                   per invoice, printed only;
                   --webhooks: an endpoint takes its invoice.created messages, the worker's commands per message
  --contracts N    section 13's month-end of N contracts (default 1,000; 40 with --quick; 4 with --smoke)
  --only totals    section 14 alone (what a list page's total reads at 1,000 to 100,000 items), printed only
  --only reports   section 18 alone (what each report of the close reads at 10,000 and 100,000 invoices)
  --only simulate  section 15 alone (a simulation at two sizes, another account's reads meanwhile), printed only
  --only shard-placement  section 16 alone (one big account placed by the shard-key plan on 2, 4, 8 shards)
  --only reservations  section 17 alone (the commands and time of one reservation), printed only
  --only exports   section 19 alone (server RSS while N events export as CSV and Parquet), printed only
  --events N,N     section 19's event counts (default 100,000 and 300,000; 10,000 and 30,000 with --quick)`;

export function parseArgs(args: string[]): BenchOptions {
  const options: BenchOptions = {
    mode: "full",
    sizes: FULL,
    jsonPath: undefined,
    docPath: SCRATCH_DOC,
    note: undefined,
    billingRunContracts: undefined,
    exportEvents: undefined,
    monthEnd: { loops: 1, kind: "flat", webhooks: false },
    only: undefined,
  };
  for (let index = 0; index < args.length; index += 1) {
    const flag = args[index];
    const value = () => {
      index += 1;
      const next = args[index];
      if (next === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return next;
    };
    // pnpm may pass a separator through.
    if (flag === "--") continue;
    else if (flag === "--quick" || flag === "--smoke") {
      if (options.mode !== "full") throw new Error(`--quick and --smoke exclude each other\n${USAGE}`);
      options.mode = flag === "--quick" ? "quick" : "smoke";
    } else if (flag === "--json") options.jsonPath = value();
    else if (flag === "--doc") options.docPath = value();
    else if (flag === "--write-docs") options.docPath = PUBLISHED_DOC;
    else if (flag === "--note") options.note = value();
    else if (flag === "--contracts") {
      const count = Number(value());
      if (!Number.isInteger(count) || count < 1) throw new Error(`--contracts takes a whole number above 0\n${USAGE}`);
      options.billingRunContracts = count;
    } else if (flag === "--loops") {
      const loops = Number(value());
      if (!Number.isInteger(loops) || loops < 1) throw new Error(`--loops takes a whole number above 0\n${USAGE}`);
      options.monthEnd.loops = loops;
    } else if (flag === "--usage") options.monthEnd.kind = "usage";
    else if (flag === "--webhooks") options.monthEnd.webhooks = true;
    else if (flag === "--events") {
      const counts = value().split(",").map(Number);
      if (!counts.every((count) => Number.isInteger(count) && count > 0))
        throw new Error(`--events takes whole numbers above 0, comma-separated\n${USAGE}`);
      options.exportEvents = counts;
    } else if (flag === "--only") {
      const section = value();
      const sections = [
        "fairness",
        "documents",
        "rollups",
        "rate-limits",
        "billing-runs",
        "billing-backlog",
        "month-end",
        "totals",
        "reports",
        "simulate",
        "shard-placement",
        "reservations",
        "exports",
      ] as const;
      const only = sections.find((name) => name === section);
      if (!only) throw new Error(`--only takes ${sections.join(", ")}\n${USAGE}`);
      options.only = only;
    } else throw new Error(`unknown argument ${flag}\n${USAGE}`);
  }
  options.sizes = { full: FULL, quick: QUICK, smoke: SMOKE }[options.mode];
  if (options.mode === "smoke" && options.only)
    throw new Error(`--smoke runs every section; --only ${options.only} takes --quick or nothing\n${USAGE}`);
  if (options.mode === "smoke" && options.docPath !== SCRATCH_DOC)
    throw new Error(`--smoke writes no report: its figures mean nothing\n${USAGE}`);
  return options;
}
