import type { AddressInfo } from "node:net";
import { DEFAULT_MAX_BATCH_CALLS } from "@billing/shared";
import type { Db } from "mongodb";
import type { SealingKey } from "./auth/secret-box.js";
import { DEFAULT_BILLING_GRACE_SECONDS } from "./config.js";
import type { RateLimits } from "./context.js";
import { connectMongo } from "./db/connect.js";
import { expiresByTtl } from "./db/expiry.js";
import { assertShardingKeepsRaces } from "./db/sharding.js";
import { type CustomerStreamSettings, DEFAULT_CUSTOMER_STREAM } from "./http/customer-stream.js";
import { gracefulCloser } from "./http/graceful-close.js";
import { createHttpServer } from "./http/server.js";
import { createLogger, type Logger } from "./logger.js";
import type { CallLimits } from "./middleware/calls-in-flight.js";
import { createMetrics, observeDatabaseClient, type ServiceMetrics } from "./observability/metrics.js";
import { databaseAnswers, readinessOf } from "./observability/readiness.js";
import { type Hooks, noHooks } from "./repositories/hooks.js";
import { createRepositories, ensureIndexes, type Repositories } from "./repositories/index.js";
import { startAlertTrigger } from "./services/alerts/trigger.js";
import { type BillingScheduler, startBillingScheduler } from "./services/billing/scheduler.js";
import { thresholdCatchUp } from "./services/billing/threshold-catch-up.js";
import { billThresholdsAfter } from "./services/billing/thresholds.js";
import { DEFAULT_COLLECTION_INTERVAL_MS, startCollectionWorker } from "./services/collection/worker.js";
import { CREDIT_ISSUER_INTERVAL_MS, startCreditIssuer } from "./services/credit-issuer.js";
import { startExpiryPurge } from "./services/expiry-purge.js";
import { EXPORT_INTERVAL_MS, startExportWorker } from "./services/exports/worker.js";
import { MIGRATION_INTERVAL_MS, startMigrationWorker } from "./services/plans/migration-worker.js";
import { type ClosingTiming, reportCloser } from "./services/reports/closing.js";
import { startUpkeepWorker, UPKEEP_INTERVAL_MS } from "./services/upkeep/worker.js";
import { type DeliveryWorker, startDeliveryWorker, type WebhookSettings } from "./services/webhook-worker.js";

export interface ServiceOptions {
  mongodbUri: string;
  dbName: string;
  /** The driver's connection pool size; the driver's default (100) when absent. */
  maxPoolSize?: number;
  host: string;
  port: number;
  /** PUBLIC_URL: the base URL callers use; the document's `servers` is then relative (`/`) when absent. */
  publicUrl?: string;
  adminToken: string | undefined;
  /** METRICS_TOKEN: the bearer token `/metrics` asks for; open without one. */
  metricsToken?: string;
  maxBodyBytes: number;
  /** Request and error logs; none when absent (as in most tests). */
  logger?: Logger;
  /** Per-token rate limits; none when absent (tests that do not test them). */
  rateLimits?: RateLimits;
  /** Calls in flight per token and per account; no cap when absent (tests that do not test it). */
  callLimits?: CallLimits;
  /** Calls a tRPC batch may hold (MAX_BATCH_CALLS's default when absent). */
  maxBatchCalls?: number;
  /** Pauses and faults between the steps of repository operations: tests only. */
  hooks?: Hooks;
  /**
   * How long after an arrears cycle's end runs wait before invoicing it (BILLING_GRACE_PERIOD's default when absent).
   */
  billingGraceMs?: number;
  /** How long after it is due an invoice stays a draft (INVOICE_DRAFT_PERIOD; 0, final at once, when absent). */
  invoiceDraftMs?: number;
  /** Webhook delivery: the worker runs with these settings; no worker when absent (tests that do not test webhooks). */
  webhooks?: WebhookSettings;
  /**
   * The billing scheduler (BILLING_SCHEDULER): every `intervalMs`, each account billed at now. None when absent: tests
   * bill at fixed past moments, and a background run would change their answers.
   */
  billingScheduler?: { intervalMs: number };
  /** How often the collection worker charges, retries and reminds on real time (default 60 s; it always runs). */
  collectionIntervalMs?: number;
  /**
   * The purge of expired rate-limit and idempotency records, every `intervalMs`, on a database without TTL indexes
   * (FerretDB). None when absent: tests purge when they choose to (purgeExpiredRecords).
   */
  expiryPurge?: { intervalMs: number };
  /**
   * The background issuer of recurring credits: every `intervalMs` (CREDIT_ISSUER_INTERVAL_MS when absent), always
   * on, whether or not the billing scheduler is.
   */
  creditIssuer?: { intervalMs: number };
  /** WEBHOOK_SECRET_KEYS: the first seals new signing secrets, each opens those it sealed. */
  sealingKeys?: SealingKey[];
  /** How often the plan migration worker works (it always runs); MIGRATION_INTERVAL_MS when absent. */
  planMigrationIntervalMs?: number;
  /** GET /customers/{customerId}/stream: polling, heartbeats, connections per account (DEFAULT_CUSTOMER_STREAM). */
  customerStream?: Partial<CustomerStreamSettings>;
  /** How often the upkeep worker (event voids, stored names' claims) works (it always runs); 1 s when absent. */
  upkeepIntervalMs?: number;
  /** When the upkeep worker closes the reports' months (services/reports/closing.ts); DEFAULT_CLOSING_TIMING else. */
  reportClosing?: ClosingTiming;
  /** AUDIT_RETENTION_DAYS: how long audit log entries are kept (400 when absent). */
  auditRetentionDays?: number;
  /** EXPORT_RETENTION_DAYS: how long exports are kept (7 when absent). */
  exportRetentionDays?: number;
  /** How often the export worker writes (it always runs); EXPORT_INTERVAL_MS when absent. */
  exportIntervalMs?: number;
}

export interface RunningService {
  url: string;
  db: Db;
  repositories: Repositories;
  /** What /metrics serves; `pnpm start` adds the process's own metrics to it. */
  metrics: ServiceMetrics;
  /**
   * Resolves once the alerts of every usage change this instance has taken so far are evaluated: what a crossing
   * found stored then is the whole of it (tests prove an absence with it instead of waiting).
   */
  alertsEvaluated(): Promise<void>;
  /** The plan migration worker: `tick()` runs a batch of every running migration now (tests drive it). */
  migrations: { tick(): Promise<void> };
  /** The upkeep worker: `tick()` takes a step of each chore now (event voids' summaries, names' claims). */
  upkeep: { tick(): Promise<void> };
  runExports(): Promise<void>;
  /** One look of the collection worker now (charges, retries and reminders due on real time). */
  runCollections(): Promise<void>;
  /**
   * Stops accepting connections, lets requests in progress finish for up to `gracePeriodMs` (then cuts their
   * connections), and closes the database client. Resolves with whether connections had to be cut.
   */
  close(gracePeriodMs?: number): Promise<{ forced: boolean }>;
}

/** Connects to MongoDB, makes sure every index exists, and serves HTTP. Used by `pnpm start` and the tests. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const metrics = createMetrics();
  const client = await connectMongo(
    options.mongodbUri,
    options.maxPoolSize ? { maxPoolSize: options.maxPoolSize } : {},
    (created) => observeDatabaseClient(created, metrics),
  );
  const db = client.db(options.dbName);
  try {
    await assertShardingKeepsRaces(db);
  } catch (error) {
    await client.close();
    throw error;
  }
  const { hooks, sealingKeys, auditRetentionDays, exportRetentionDays } = options;
  const repositories = createRepositories(db, { hooks, sealingKeys, metrics, auditRetentionDays, exportRetentionDays });
  await ensureIndexes(repositories);
  // MongoDB deletes expired records by their TTL indexes; FerretDB has none, so a purge job of ours does.
  const deletesExpired = await expiresByTtl(db);
  let worker: DeliveryWorker | undefined;
  let stopping = false;
  // Indexes are ensured above, before the server listens: a server that answers has them.
  const readiness = async () =>
    readinessOf({
      accepting: !stopping,
      database: await databaseAnswers(db),
      indexes: true,
      ...(worker && { webhookWorker: worker.alive(new Date()) }),
    });
  const logger = options.logger ?? createLogger("silent");
  const server = createHttpServer({
    repositories,
    adminToken: options.adminToken,
    metricsToken: options.metricsToken,
    metrics,
    readiness,
    maxBodyBytes: options.maxBodyBytes,
    publicUrl: options.publicUrl,
    logger,
    rateLimits: options.rateLimits,
    billingGraceMs: options.billingGraceMs ?? DEFAULT_BILLING_GRACE_SECONDS * 1000,
    invoiceDraftMs: options.invoiceDraftMs ?? 0,
    allowPrivateWebhookUrls: options.webhooks?.allowPrivateNetworks ?? false,
    maxBatchCalls: options.maxBatchCalls ?? DEFAULT_MAX_BATCH_CALLS,
    callLimits: options.callLimits,
    hooks: options.hooks ?? noHooks,
    customerStream: { ...DEFAULT_CUSTOMER_STREAM, ...options.customerStream },
  });
  const closeGracefully = gracefulCloser(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  const url = `http://${hostForUrl}:${(server.address() as AddressInfo).port}`;
  worker = options.webhooks && startDeliveryWorker(repositories, options.webhooks, logger, metrics);
  const alertTrigger = startAlertTrigger(repositories, logger, (change) =>
    billThresholdsAfter(repositories, change, logger),
  );
  const migrations = startMigrationWorker(
    repositories,
    logger,
    options.planMigrationIntervalMs ?? MIGRATION_INTERVAL_MS,
  );
  const upkeep = startUpkeepWorker(
    repositories,
    logger,
    options.upkeepIntervalMs ?? UPKEEP_INTERVAL_MS,
    thresholdCatchUp(repositories, logger),
    reportCloser(repositories, options.reportClosing),
  );
  const exportWorker = startExportWorker(repositories, logger, options.exportIntervalMs ?? EXPORT_INTERVAL_MS);
  const collectionWorker = startCollectionWorker(
    repositories,
    options.collectionIntervalMs ?? DEFAULT_COLLECTION_INTERVAL_MS,
    logger,
  );
  const creditIssuer = startCreditIssuer(
    repositories,
    logger,
    options.creditIssuer?.intervalMs ?? CREDIT_ISSUER_INTERVAL_MS,
  );
  const expiryPurge =
    options.expiryPurge && !deletesExpired
      ? startExpiryPurge(repositories, logger, metrics, options.expiryPurge.intervalMs)
      : undefined;
  const scheduler: BillingScheduler | undefined =
    options.billingScheduler &&
    startBillingScheduler(
      repositories,
      {
        intervalMs: options.billingScheduler.intervalMs,
        graceMs: options.billingGraceMs ?? DEFAULT_BILLING_GRACE_SECONDS * 1000,
        draftMs: options.invoiceDraftMs ?? 0,
      },
      logger,
      metrics,
    );
  return {
    url,
    db,
    repositories,
    metrics,
    alertsEvaluated: () => alertTrigger.idle(),
    migrations: { tick: () => migrations.runNow() },
    upkeep: { tick: () => upkeep.runNow() },
    /** One look of the export worker now: batches of the unfinished exports, and the purge of expired ones. */
    runExports: () => exportWorker.runNow(),
    /** One look of the collection worker now: charges, retries and reminders due on real time. */
    runCollections: () => collectionWorker.runNow(),
    async close(gracePeriodMs = 0) {
      stopping = true;
      // The worker gives back the attempts it has in flight, and the scheduler ends the run call it is in, before the
      // database client closes.
      const [outcome] = await Promise.all([
        closeGracefully(gracePeriodMs),
        worker?.close(),
        scheduler?.close(),
        collectionWorker.close(),
        alertTrigger.close(),
        migrations.close(),
        upkeep.close(),
        exportWorker.close(),
        creditIssuer.close(),
        expiryPurge?.close(),
      ]);
      await client.close();
      return outcome;
    },
  };
}
