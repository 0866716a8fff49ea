import type { MongoClient } from "mongodb";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { workOrigin } from "./work-origin.js";

/** Seconds: from a fast read (a few ms) to a long billing run or a slow webhook endpoint (15 s timeout). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Changes of an invoice that move money, as the money counters take them (observability imports no domain type). */
export type MoneyChangeKind = "FINALIZE" | "PAYMENT" | "CREDIT_NOTE";

/** Micro-units per unit of a currency: amounts are counted in the currency's units (10.5 is 10.50 USD). */
const MICROS_PER_UNIT = 1_000_000;

/** Background and long work whose duration is measured: each is one label value of `billing_task_duration_seconds`. */
export type MeasuredTask = "billing_run" | "billing_scheduler_tick" | "webhook_poll" | "webhook_sweep" | "expiry_purge";

/**
 * The Prometheus metrics of one service instance, in a registry of its own (never the library's global one: tests
 * start several services in one process, and each must report only its own work).
 */
export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  const metrics = {
    registry,
    httpRequests: new Histogram({
      name: "billing_http_request_duration_seconds",
      help: "HTTP requests by method, route template (never the raw path) and status; _count counts them",
      labelNames: ["method", "route", "status"] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    eventsIngested: new Counter({
      name: "billing_events_ingested_total",
      help: "Usage events stored (duplicates of a stored ref are not counted)",
      registers,
    }),
    invoicesCreated: new Counter({
      name: "billing_invoices_created_total",
      help: "Invoices created, counted at the insert that created each (never twice under concurrent runs)",
      registers,
    }),
    invoicesFinalized: new Counter({
      name: "billing_invoices_finalized_total",
      help: "Invoices finalized, by currency; counted once, at the insert that logged the finalization",
      labelNames: ["currency"] as const,
      registers,
    }),
    invoicedAmount: new Counter({
      name: "billing_invoiced_amount_total",
      help: "Totals of the invoices finalized, by currency, in the currency's units (10.5 is 10.50 USD)",
      labelNames: ["currency"] as const,
      registers,
    }),
    payments: new Counter({
      name: "billing_payments_total",
      help: "Payments recorded on invoices, by currency; counted once, at the insert that logged each",
      labelNames: ["currency"] as const,
      registers,
    }),
    paymentsAmount: new Counter({
      name: "billing_payments_amount_total",
      help: "Amounts of the payments recorded, by currency, in the currency's units (12.5 is 12.50 USD)",
      labelNames: ["currency"] as const,
      registers,
    }),
    creditNotes: new Counter({
      name: "billing_credit_notes_total",
      help: "Credit notes issued (OFFSET and CREDITS), by currency; counted once, at the insert that logged each",
      labelNames: ["currency"] as const,
      registers,
    }),
    creditNotesAmount: new Counter({
      name: "billing_credit_notes_amount_total",
      help: "Amounts of the credit notes issued, by currency, in the currency's units (3 is 3.00 USD)",
      labelNames: ["currency"] as const,
      registers,
    }),
    webhookAttempts: new Counter({
      name: "billing_webhook_attempts_total",
      help: "Webhook delivery attempts made, by what the delivery became: SUCCEEDED, PENDING (a retry follows), FAILED",
      labelNames: ["outcome"] as const,
      registers,
    }),
    taskDuration: new Histogram({
      name: "billing_task_duration_seconds",
      help: "Duration of billing runs and of the webhook worker's scheduled polls and sweeps",
      labelNames: ["task"] as const,
      buckets: DURATION_BUCKETS,
      registers,
    }),
    schedulerTicks: new Counter({
      name: "billing_scheduler_ticks_total",
      help: "Ticks of this instance's billing scheduler that ran to their end (BILLING_SCHEDULER)",
      registers,
    }),
    schedulerLastTick: new Gauge({
      name: "billing_scheduler_last_tick_seconds",
      help: "Unix time at which this instance's billing scheduler last ended a tick (0: none yet)",
      registers,
    }),
    callsRefused: new Counter({
      name: "billing_calls_refused_total",
      help: "Calls answered 429, each of a batch counted: slots (too many in flight), rate_limit (allowance spent)",
      labelNames: ["reason"] as const,
      registers,
    }),
    callsWaiting: new Gauge({
      name: "billing_calls_waiting",
      help: "Calls waiting now for a slot of their token or of their account",
      labelNames: ["kind"] as const,
      registers,
    }),
    dbCommands: new Counter({
      name: "billing_db_commands_total",
      help:
        "Database commands sent, by where they come from: request (answering a call), webhooks (the webhook " +
        "worker's polls and deliveries) or background (the scheduler and the other workers)",
      labelNames: ["origin"] as const,
      registers,
    }),
    dbPoolConnections: new Gauge({
      name: "billing_db_pool_connections",
      help: "The database driver's pooled connections: open, in_use (checked out), waiting (checkouts queued)",
      labelNames: ["state"] as const,
      registers,
    }),
    /**
     * Counts a change that moves money, and its amount (micro-units of `currency`): call it once per change, where
     * the change is logged (repositories/invoice-changes.ts), never where it is applied (a replay applies it again).
     */
    countMoneyChange(kind: MoneyChangeKind, currency: string, micros: number) {
      const [count, amount] = {
        FINALIZE: [metrics.invoicesFinalized, metrics.invoicedAmount] as const,
        PAYMENT: [metrics.payments, metrics.paymentsAmount] as const,
        CREDIT_NOTE: [metrics.creditNotes, metrics.creditNotesAmount] as const,
      }[kind];
      count.inc({ currency });
      amount.inc({ currency }, micros / MICROS_PER_UNIT);
    },
    /** Runs `task`, recording its duration whether it succeeds or throws. */
    async timed<T>(task: MeasuredTask, run: () => Promise<T>): Promise<T> {
      const end = metrics.taskDuration.startTimer({ task });
      try {
        return await run();
      } finally {
        end();
      }
    },
  };
  for (const state of ["open", "in_use", "waiting"]) metrics.dbPoolConnections.set({ state }, 0);
  for (const kind of ["token", "account"]) metrics.callsWaiting.set({ kind }, 0);
  for (const reason of ["slots", "rate_limit"]) metrics.callsRefused.inc({ reason }, 0);
  return metrics;
}
export type ServiceMetrics = ReturnType<typeof createMetrics>;

/**
 * How often the event loop's delay is sampled (prom-client's default is every 10 ms): its timer woke an idle instance
 * 100 times a second, a quarter of that instance's CPU (about 3.5 of 13 ms a second, measured on a loaded machine).
 * A stall still delays the sample due during it; one shorter than this between two samples may go unseen.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** Adds the process's own metrics (CPU, memory, event loop lag, handles) to the registry: once per process. */
export const collectProcessMetrics = (metrics: ServiceMetrics) =>
  collectDefaultMetrics({ register: metrics.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });

/**
 * Follows the driver's connection pool and counts its commands by origin, through its events: attach before `connect`,
 * so that no event is missed.
 */
export function observeDatabaseClient(client: MongoClient, metrics: ServiceMetrics) {
  const pool = metrics.dbPoolConnections;
  client.on("connectionCreated", () => pool.inc({ state: "open" }));
  client.on("connectionClosed", () => pool.dec({ state: "open" }));
  client.on("connectionCheckOutStarted", () => {
    pool.inc({ state: "waiting" });
    // Each command asks the pool for a connection, from its sender's async context (and once at connect): counted
    // here rather than by command monitoring, which would build two events and decode every reply a second time.
    metrics.dbCommands.inc({ origin: workOrigin() });
  });
  client.on("connectionCheckOutFailed", () => pool.dec({ state: "waiting" }));
  client.on("connectionCheckedOut", () => {
    pool.dec({ state: "waiting" });
    pool.inc({ state: "in_use" });
  });
  client.on("connectionCheckedIn", () => pool.dec({ state: "in_use" }));
}
