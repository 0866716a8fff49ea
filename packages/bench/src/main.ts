import { cpus, loadavg, release, totalmem } from "node:os";
import { MongoClient } from "mongodb";
import { createBenchAccount } from "./api.js";
import type { BenchContext } from "./context.js";
import { parseArgs } from "./options.js";
import { formatCount, log, progress } from "./progress.js";
import {
  type BenchResults,
  documentsMarkdown,
  fairnessMarkdown,
  rateLimitsMarkdown,
  toMarkdown,
  writeJson,
  writeMarkdown,
} from "./report.js";
import { benchBillingBacklog, billingBacklogMarkdown } from "./sections/billing-backlog.js";
import { benchBillingRuns, benchMonthEnd, billingRunsMarkdown, monthEndMarkdown } from "./sections/billing-runs.js";
import { benchDocuments, benchDocumentsAlone } from "./sections/documents.js";
import { benchEventQueries, type EventsQueryCheckpoint } from "./sections/events-query.js";
import { benchExports, exportsMarkdown } from "./sections/exports.js";
import { benchFairness } from "./sections/fairness.js";
import { benchIngestion } from "./sections/ingest.js";
import { benchMeasurements } from "./sections/measurements.js";
import { benchPagination } from "./sections/pagination.js";
import { benchRateLimits, benchRateLimitsAlone } from "./sections/rate-limits.js";
import { benchReports, reportsMarkdown } from "./sections/reports.js";
import { benchReservations, reservationsMarkdown } from "./sections/reservations.js";
import { benchRollups, rollupsMarkdown } from "./sections/rollups.js";
import { benchShardPlacement, shardPlacementMarkdown } from "./sections/shard-placement.js";
import { benchSimulation, simulationMarkdown } from "./sections/simulate.js";
import { benchTotals, totalsMarkdown } from "./sections/totals.js";
import { benchTransports } from "./sections/transports.js";
import { benchUsagePricing } from "./sections/usage-pricing.js";
import { benchWebhooks } from "./sections/webhooks.js";
import { startServer } from "./server.js";
import { runConcurrently } from "./stats.js";

const args = process.argv.slice(2);
const options = parseArgs(args);
const { sizes } = options;
const smoke = options.mode === "smoke";
const startedAt = new Date();
const loadAverageAtStart = loadavg()[0]!;
log(`${options.mode} run; the server starts on a fresh embedded database`);

/** What CI allows a smoke run (.ci/run); past it, the run says so (a busy machine may be the cause), still passing. */
const SMOKE_BUDGET_SECONDS = 120;
/** Each section's time, and its error when it failed. */
const sectionsRun: { title: string; seconds: number; error?: unknown }[] = [];

/**
 * Runs one section, timed. A smoke run goes on past a failed section (each one's failure is worth seeing) and exits
 * 1 at its end; any other run stops at the first: a report with a hole is no report.
 */
async function section<T>(title: string, work: () => Promise<T>): Promise<T | undefined> {
  log(title);
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const result = await work();
    sectionsRun.push({ title, seconds: seconds() });
    return result;
  } catch (error) {
    sectionsRun.push({ title, seconds: seconds(), error });
    if (!smoke) throw error;
    log(`FAILED: ${title}\n${error instanceof Error ? error.stack : String(error)}`);
    return undefined;
  }
}

const FAIRNESS_TITLE = "10. fairness: another account's reads while one account floods the server";
const DOCUMENTS_TITLE = "11. documents: a 100-line invoice as a PDF and as HTML vs its JSON read";
const ROLLUPS_TITLE =
  "12. usage rollups: documents one usage read returns at 1,000 and 100,000 events; ingestion's cost";
const BILLING_RUNS_TITLE = "13. billing runs: a month-end billed by one run loop vs two at once (claims split it)";
const TOTALS_TITLE = "14. list totals: what a page's total reads at 1,000, 10,000 and 100,000 customers";
const SIMULATE_TITLE = "15. simulation: POST /invoices/simulate at two sizes, another account's reads meanwhile";
const RESERVATIONS_TITLE = "17. reservations: database commands and time of one reservation";
const billingRunContracts = options.billingRunContracts ?? sizes.billingRunContracts;
const rollups = () => benchRollups(sizes.rollupEvents);
const billingRuns = () =>
  benchBillingRuns(billingRunContracts, sizes.billingRunRawWrites, sizes.schedulerIdleAccounts, sizes.billingBacklog);
const totals = () => benchTotals(sizes.totalsCustomers);
const reservations = () => benchReservations(sizes.reservations);
const REPORTS_TITLE = "18. reports: the ledger documents each report of the close reads at 10,000 and 100,000 invoices";
const reports = () => benchReports(sizes.reportInvoices);
const EXPORTS_TITLE = "19. exports: server RSS while N events export as CSV and Parquet (constant memory)";
const exportsSection = () => benchExports(options.exportEvents ?? sizes.exportEvents);

if (options.only === "fairness") {
  log(FAIRNESS_TITLE);
  console.log(fairnessMarkdown(await benchFairness(options)).join("\n"));
  process.exit(0);
}
if (options.only === "documents") {
  log(DOCUMENTS_TITLE);
  console.log(documentsMarkdown(await benchDocumentsAlone(options)).join("\n"));
  process.exit(0);
}
if (options.only === "rate-limits") {
  log("7. rate limiting, per call, against a plain read");
  console.log(rateLimitsMarkdown(await benchRateLimitsAlone(options)).join("\n"));
  process.exit(0);
}
if (options.only === "rollups") {
  log(ROLLUPS_TITLE);
  console.log(rollupsMarkdown(await rollups()).join("\n"));
  process.exit(0);
}
if (options.only === "totals") {
  log(TOTALS_TITLE);
  console.log(totalsMarkdown(await totals()).join("\n"));
  process.exit(0);
}
if (options.only === "reports") {
  log(REPORTS_TITLE);
  console.log(reportsMarkdown(await reports()).join("\n"));
  process.exit(0);
}
if (options.only === "exports") {
  log(EXPORTS_TITLE);
  console.log(exportsMarkdown(await exportsSection()).join("\n"));
  process.exit(0);
}
if (options.only === "simulate") {
  log(SIMULATE_TITLE);
  console.log(simulationMarkdown(await benchSimulation(sizes)).join("\n"));
  process.exit(0);
}
const SHARD_TITLE = "16. shard placement: one account of 10M events, 1M customers, 1M invoices on 2, 4, 8 shards";
if (options.only === "shard-placement") {
  log(SHARD_TITLE);
  console.log(shardPlacementMarkdown(benchShardPlacement(sizes.shardScale)).join("\n"));
  process.exit(0);
}
if (options.only === "reservations") {
  log(RESERVATIONS_TITLE);
  console.log(reservationsMarkdown(await reservations()).join("\n"));
  process.exit(0);
}
if (options.only === "billing-backlog") {
  log(`${BILLING_RUNS_TITLE}: the backlog alone`);
  console.log(billingBacklogMarkdown(await benchBillingBacklog(sizes.billingBacklog)).join("\n"));
  process.exit(0);
}
if (options.only === "month-end") {
  const { loops, kind, webhooks } = options.monthEnd;
  log(`${BILLING_RUNS_TITLE}: one month-end alone (${loops} loop(s), ${kind})`);
  console.log(monthEndMarkdown(await benchMonthEnd(billingRunContracts, loops, kind, webhooks)).join("\n"));
  process.exit(0);
}
if (options.only === "billing-runs") {
  log(BILLING_RUNS_TITLE);
  console.log(billingRunsMarkdown(await billingRuns()).join("\n"));
  process.exit(0);
}

// The throughput sections compare the service with the raw driver at set concurrencies (up to 64): every cap of
// calls in flight is out of their reach, the instance's too (its 16 would hold the rest of 64 in line, then refuse
// them 429). No call may wait for a slot: one that would is refused 429 at once and stops the run, rather than add
// the wait to a figure unseen.
const server = await startServer({
  MAX_CALLS_IN_FLIGHT_PER_TOKEN: "1000",
  MAX_CALLS_IN_FLIGHT_PER_ACCOUNT: "1000",
  MAX_CALLS_IN_FLIGHT_PER_ACCOUNT_SHARED: "1000",
  MAX_CALLS_IN_FLIGHT: "1000",
  MAX_QUEUED_CALLS: "0",
});
const client = await MongoClient.connect(server.databaseUri);
let results: BenchResults | undefined;
try {
  log(`server pid ${server.pid} at ${server.url}; database: ${server.engine}`);
  const api = await createBenchAccount(server.url, server.adminToken);

  const { customers } = sizes;
  const customerIds: string[] = new Array(customers);
  await runConcurrently(customers, 16, async (index) => {
    const created = await api.call<{ customer: { id: string } }>(
      "POST",
      "/customers",
      { name: `customer-${index}` },
      201,
    );
    customerIds[index] = created.customer.id;
    progress(`customers: ${formatCount(customerIds.filter(Boolean).length)} / ${formatCount(customers)}`);
  });
  const context: BenchContext = { options, server, api, db: client.db(server.databaseName), customerIds };
  const newAccount = () => createBenchAccount(server.url, server.adminToken);

  const transports = await section("5. REST vs tRPC", () => benchTransports(context));
  const rateLimits = await section("7. rate limiting, per call", () => benchRateLimits(context.db, options));
  const measurements = await section("2. measurements", () => benchMeasurements(context));
  const eventQueries: EventsQueryCheckpoint[] = [];
  const ingest = await section("1, 3 and 6. event ingestion, event queries at each checkpoint, server memory", () =>
    benchIngestion(context, async (stored) => {
      log(`3. event queries at ${formatCount(stored)} stored events`);
      eventQueries.push(await benchEventQueries(context, stored));
    }),
  );
  const pagination = await section("4. deep pagination", () => benchPagination(context));
  const usagePricing = await section("8. billing event-priced usage", async () =>
    benchUsagePricing(context, await newAccount()),
  );
  const webhooks = await section("9. webhooks: a change with an endpoint listening", async () =>
    benchWebhooks(context, await newAccount(), await newAccount()),
  );
  const documents = await section(DOCUMENTS_TITLE, async () =>
    benchDocuments(server.url, await newAccount(), sizes.seriesSeconds),
  );
  const fairness = await section(FAIRNESS_TITLE, () => benchFairness(options));
  const simulation = await section(SIMULATE_TITLE, () => benchSimulation(sizes));
  const shardPlacement = await section(SHARD_TITLE, async () => benchShardPlacement(sizes.shardScale));

  if (sectionsRun.every(({ error }) => error === undefined)) {
    const cpu = cpus();
    results = {
      run: {
        command: ["pnpm bench", ...args.filter((arg) => arg !== "--")].join(" "),
        startedAt: startedAt.toISOString(),
        durationMinutes: (Date.now() - startedAt.getTime()) / 60_000,
        machine:
          `${cpu[0]?.model ?? "unknown CPU"}, ${cpu.length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
          `Linux ${release()}`,
        node: process.version,
        database: server.engine,
        loadAverageAtStart,
        loadAverageAtEnd: loadavg()[0]!,
        note: options.note,
      },
      ingest: ingest!,
      measurements: measurements!,
      eventQueries,
      pagination: pagination!,
      transports: transports!,
      rateLimits: rateLimits!,
      usagePricing: usagePricing!,
      webhooks: webhooks!,
      fairness: fairness!,
      documents: documents!,
      simulation: simulation!,
      shardPlacement: shardPlacement!,
    };
  }
} finally {
  await client.close();
  await server.stop();
}

if (smoke) {
  // Sections 12 to 14, 17 to 19 run alone otherwise (--only), each on a database or servers of its own; rendered, not
  // printed.
  await section(ROLLUPS_TITLE, async () => rollupsMarkdown(await rollups()));
  await section(BILLING_RUNS_TITLE, async () => billingRunsMarkdown(await billingRuns()));
  await section(TOTALS_TITLE, async () => totalsMarkdown(await totals()));
  await section(RESERVATIONS_TITLE, async () => reservationsMarkdown(await reservations()));
  await section(REPORTS_TITLE, async () => reportsMarkdown(await reports()));
  await section(EXPORTS_TITLE, async () => exportsMarkdown(await exportsSection()));
}

if (results) {
  const markdown = toMarkdown(results);
  if (smoke)
    log(`report rendered (${markdown.split("\n").length} lines), not written: a smoke run's figures mean nothing`);
  else {
    await writeMarkdown(options.docPath, markdown);
    log(`wrote ${options.docPath}`);
  }
  if (options.jsonPath) {
    await writeJson(options.jsonPath, results);
    log(`wrote ${options.jsonPath}`);
  }
  if (!smoke) console.log(markdown);
}

const failed = sectionsRun.filter(({ error }) => error !== undefined);
const totalSeconds = (Date.now() - startedAt.getTime()) / 1000;
log(
  `${options.mode} run: ${sectionsRun.length - failed.length} of ${sectionsRun.length} sections ran to their end ` +
    `in ${totalSeconds.toFixed(0)} s\n` +
    sectionsRun
      .map(
        ({ title, seconds, error }) => `  ${error ? "FAILED" : "ok    "} ${seconds.toFixed(1).padStart(6)} s  ${title}`,
      )
      .join("\n"),
);
if (smoke && totalSeconds > SMOKE_BUDGET_SECONDS)
  log(`over the smoke run's budget of ${SMOKE_BUDGET_SECONDS} s: make its sizes smaller (SMOKE in options.ts)`);
// Nothing of a run is left to wait for; a smoke run's exit status is its verdict.
process.exit(failed.length > 0 ? 1 : 0);
