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
import { benchBillingRuns, billingRunsMarkdown } from "./sections/billing-runs.js";
import { benchDocuments, benchDocumentsAlone } from "./sections/documents.js";
import { benchEventQueries, type EventsQueryCheckpoint } from "./sections/events-query.js";
import { benchFairness } from "./sections/fairness.js";
import { benchIngestion } from "./sections/ingest.js";
import { benchMeasurements } from "./sections/measurements.js";
import { benchPagination } from "./sections/pagination.js";
import { benchRateLimits, benchRateLimitsAlone } from "./sections/rate-limits.js";
import { benchRollups, rollupsMarkdown } from "./sections/rollups.js";
import { benchTotals, totalsMarkdown } from "./sections/totals.js";
import { benchTransports } from "./sections/transports.js";
import { benchUsagePricing } from "./sections/usage-pricing.js";
import { benchWebhooks } from "./sections/webhooks.js";
import { startServer } from "./server.js";
import { runConcurrently } from "./stats.js";

const args = process.argv.slice(2);
const options = parseArgs(args);
const startedAt = new Date();
const loadAverageAtStart = loadavg()[0]!;
log(`${options.quick ? "quick" : "full"} run; the server starts on a fresh embedded database`);
const FAIRNESS_TITLE = "10. fairness: another account's reads while one account floods the server";
if (options.only === "fairness") {
  log(FAIRNESS_TITLE);
  console.log(fairnessMarkdown(await benchFairness(options)).join("\n"));
  process.exit(0);
}
const DOCUMENTS_TITLE = "11. documents: a 100-line invoice as a PDF and as HTML vs its JSON read";
if (options.only === "documents") {
  log(DOCUMENTS_TITLE);
  console.log(documentsMarkdown(await benchDocumentsAlone(options)).join("\n"));
  process.exit(0);
}
const ROLLUPS_TITLE =
  "12. usage rollups: documents one usage read returns at 1,000 and 100,000 events; ingestion's cost";
if (options.only === "rate-limits") {
  log("7. rate limiting, per call, against a plain read");
  console.log(rateLimitsMarkdown(await benchRateLimitsAlone(options)).join("\n"));
  process.exit(0);
}
if (options.only === "rollups") {
  log(ROLLUPS_TITLE);
  console.log(rollupsMarkdown(await benchRollups()).join("\n"));
  process.exit(0);
}
if (options.only === "totals") {
  log("14. list totals: what a page's total reads at 1,000, 10,000 and 100,000 customers");
  console.log(totalsMarkdown(await benchTotals()).join("\n"));
  process.exit(0);
}

const BILLING_RUNS_TITLE = "13. billing runs: a month-end billed by one run loop vs two at once (claims split it)";
if (options.only === "billing-runs") {
  log(BILLING_RUNS_TITLE);
  console.log(billingRunsMarkdown(await benchBillingRuns(options.quick, options.billingRunContracts)).join("\n"));
  process.exit(0);
}

// The throughput sections compare the service with the raw driver at set concurrencies: slots out of their reach.
const server = await startServer({
  MAX_CALLS_IN_FLIGHT_PER_TOKEN: "1000",
  MAX_CALLS_IN_FLIGHT_PER_ACCOUNT: "1000",
  MAX_CALLS_IN_FLIGHT_PER_ACCOUNT_SHARED: "1000",
  MAX_QUEUED_CALLS: "10000",
});
const client = await MongoClient.connect(server.databaseUri);
try {
  log(`server pid ${server.pid} at ${server.url}; database: ${server.engine}`);
  const api = await createBenchAccount(server.url, server.adminToken);

  const { customers } = options.sizes;
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

  log("5. REST vs tRPC");
  const transports = await benchTransports(context);
  log("7. rate limiting, per call");
  const rateLimits = await benchRateLimits(context.db, options);
  log("2. measurements");
  const measurements = await benchMeasurements(context);
  log("1, 3 and 6. event ingestion, event queries at each checkpoint, server memory");
  const eventQueries: EventsQueryCheckpoint[] = [];
  const ingest = await benchIngestion(context, async (stored) => {
    log(`3. event queries at ${formatCount(stored)} stored events`);
    eventQueries.push(await benchEventQueries(context, stored));
  });
  log("4. deep pagination");
  const pagination = await benchPagination(context);
  log("7. billing event-priced usage");
  const usagePricing = await benchUsagePricing(context, await createBenchAccount(server.url, server.adminToken));
  log("9. webhooks: a change with an endpoint listening");
  const webhooks = await benchWebhooks(
    context,
    await createBenchAccount(server.url, server.adminToken),
    await createBenchAccount(server.url, server.adminToken),
  );

  log(DOCUMENTS_TITLE);
  const documentsAccount = await createBenchAccount(server.url, server.adminToken);
  const documents = await benchDocuments(server.url, documentsAccount, options.sizes.seriesSeconds);

  log(FAIRNESS_TITLE);
  const fairness = await benchFairness(options);

  const cpu = cpus();
  const results: BenchResults = {
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
    ingest,
    measurements,
    eventQueries,
    pagination,
    transports,
    rateLimits,
    usagePricing,
    webhooks,
    fairness,
    documents,
  };
  await writeMarkdown(options.docPath, toMarkdown(results));
  log(`wrote ${options.docPath}`);
  if (options.jsonPath) {
    await writeJson(options.jsonPath, results);
    log(`wrote ${options.jsonPath}`);
  }
  console.log(toMarkdown(results));
} finally {
  await client.close();
  await server.stop();
}
