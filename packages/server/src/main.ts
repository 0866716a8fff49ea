import { startService } from "./app.js";
import { loadConfig } from "./config.js";
import { assertDatabaseAnswers, withoutCredentials } from "./db/connect.js";
import { provisionDatabase, publishInstance, unpublishInstance } from "./db/provision.js";
import { createLogger } from "./logger.js";
import { ACTIVE_ACCOUNT_WINDOW_MS } from "./middleware/calls-in-flight.js";
import { collectProcessMetrics } from "./observability/metrics.js";
import { EXPIRY_PURGE_INTERVAL_MS } from "./services/expiry-purge.js";
import { DEFAULT_WEBHOOK_TIMING } from "./services/webhook-worker.js";

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);

const database = await provisionDatabase({
  mongodbUri: config.MONGODB_URI,
  dataDir: config.DATA_DIR,
  persistent: true,
  engine: config.EMBEDDED_DB,
  log: (message) => logger.info(message),
});
try {
  await assertDatabaseAnswers(database.uri);
} catch (error) {
  // One line naming where it looked (no password), then a non-zero exit: no stack, no 30 s wait.
  logger.error(
    { uri: withoutCredentials(database.uri), reason: (error as Error).message },
    "the database does not answer: check MONGODB_URI",
  );
  await database.stop();
  process.exit(1);
}
logger.info({ engine: database.engine, location: database.location }, "database ready");

const service = await startService({
  mongodbUri: database.uri,
  dbName: config.MONGODB_DB,
  maxPoolSize: config.MONGODB_MAX_POOL_SIZE,
  host: config.HOST,
  port: config.PORT,
  publicUrl: config.PUBLIC_URL,
  adminToken: config.ADMIN_TOKEN,
  metricsToken: config.METRICS_TOKEN,
  maxBodyBytes: config.MAX_BODY_BYTES,
  logger,
  rateLimits: {
    perWindow: config.RATE_LIMIT_PER_MINUTE,
    ingestPerWindow: config.RATE_LIMIT_INGEST_PER_MINUTE,
    windowSeconds: 60,
  },
  callLimits: {
    perToken: config.MAX_CALLS_IN_FLIGHT_PER_TOKEN,
    perAccount: config.MAX_CALLS_IN_FLIGHT_PER_ACCOUNT,
    whileShared: {
      perAccount: config.MAX_CALLS_IN_FLIGHT_PER_ACCOUNT_SHARED,
      activeWindowMs: ACTIVE_ACCOUNT_WINDOW_MS,
    },
    perInstance: config.MAX_CALLS_IN_FLIGHT,
    queued: config.MAX_QUEUED_CALLS,
    queueMs: config.CALL_QUEUE_TIMEOUT_MS,
  },
  maxBatchCalls: config.MAX_BATCH_CALLS,
  billingGraceMs: config.BILLING_GRACE_PERIOD * 1000,
  invoiceDraftMs: config.INVOICE_DRAFT_PERIOD * 1000,
  webhooks: {
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    ...DEFAULT_WEBHOOK_TIMING,
  },
  sealingKeys: config.WEBHOOK_SECRET_KEYS,
  auditRetentionDays: config.AUDIT_RETENTION_DAYS,
  exportRetentionDays: config.EXPORT_RETENTION_DAYS,
  expiryPurge: { intervalMs: EXPIRY_PURGE_INTERVAL_MS },
  ...(config.BILLING_SCHEDULER && { billingScheduler: { intervalMs: config.BILLING_SCHEDULER_INTERVAL * 1000 } }),
});
// Once per process, so here rather than in startService (tests start many services in one process).
collectProcessMetrics(service.metrics);
if (database.embedded) await publishInstance(config.DATA_DIR, database.uri);

if (database.embedded && (await service.repositories.accounts.isEmpty())) {
  const account = await service.repositories.accounts.create("default");
  const { token } = await service.repositories.tokens.create(account.id);
  logger.info({ accountId: account.id }, "no account existed, so one was created; its token is on stderr");
  // A secret for the developer's eyes, never a log line: logs are collected and kept, stderr is the terminal.
  process.stderr.write(
    `\nAccount "${account.name}" (${account.id}) created. Its API token, shown only this once:\n\n    ${token}\n\n` +
      `Try: curl -H "Authorization: Bearer ${token}" ${service.url}/customers\n\n`,
  );
}

logger.info(
  { url: service.url },
  "listening: REST at /, tRPC at /trpc, OpenAPI at /openapi.json, the console at /console, /health, /ready and " +
    "/metrics",
);
logger.info(
  config.BILLING_SCHEDULER
    ? `billing scheduler on: every account billed every ${config.BILLING_SCHEDULER_INTERVAL} s`
    : "billing scheduler off (BILLING_SCHEDULER=false): invoices are made only by POST /billing-runs and the CLI",
);
if (!config.ADMIN_TOKEN) logger.info("admin API disabled (set ADMIN_TOKEN to enable /admin/*)");
if (!config.METRICS_TOKEN) logger.info("/metrics is open to anyone who reaches it (set METRICS_TOKEN to protect it)");
if (config.WEBHOOK_SECRET_KEYS.length === 0) {
  const unsealed = "webhook signing secrets are stored unsealed (set WEBHOOK_SECRET_KEYS to seal them)";
  // Expected on a developer's embedded database; a production database should not hold usable secrets.
  if (database.embedded) logger.info(unsealed);
  else logger.warn(unsealed);
}

let stopping = false;
async function shutdown(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, "shutting down: finishing requests in progress");
  try {
    const { forced } = await service.close(config.SHUTDOWN_TIMEOUT_MS);
    if (forced) logger.warn("shutdown timeout reached: connections still open were closed");
    if (database.embedded) await unpublishInstance(config.DATA_DIR);
    await database.stop();
    logger.info("stopped");
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, "shutdown failed");
    process.exit(1);
  }
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
