import { fileURLToPath } from "node:url";
import { DEFAULT_MAX_BATCH_CALLS } from "@billing/shared";
import { z } from "zod";
import { parseSealingKeys } from "./auth/secret-box.js";
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from "./domain/webhooks/retry-schedule.js";

/** An hour: events sent a little late still count for the cycle they belong to. */
export const DEFAULT_BILLING_GRACE_SECONDS = 3600;

/** A minute: an invoice is made at most about this long after it is due. */
export const DEFAULT_SCHEDULER_INTERVAL_SECONDS = 60;

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Every setting, read once from the environment. */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  // The base URL callers use (behind a proxy, a path prefix included): /openapi.json's `servers` and /docs use it.
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, hostname: z.regexes.hostname, error: "must be an http:// or https:// URL" })
    .refine((text) => !/[?#]/.test(text), "must have no query string or fragment")
    .transform((text) => text.replace(/\/+$/, ""))
    .optional(),
  MONGODB_URI: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, "must start with mongodb:// or mongodb+srv://")
    .optional(),
  MONGODB_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,60}$/, "letters, digits, _ and - only")
    .default("billing"),
  // Past this many operations in flight, more wait in the driver (see docs/benchmarks.md for why 16).
  MONGODB_MAX_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(16),
  ADMIN_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  // The bearer token Prometheus sends to /metrics; without it, /metrics is open (a scrape from a private network).
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024),
  DATA_DIR: z.string().min(1).default(`${REPO_ROOT}.data`),
  EMBEDDED_DB: z.enum(["auto", "mongodb-memory-server", "ferretdb"]).default("auto"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_INGEST_PER_MINUTE: z.coerce.number().int().min(1).default(6000),
  MAX_BATCH_CALLS: z.coerce.number().int().min(1).max(1000).default(DEFAULT_MAX_BATCH_CALLS),
  // Calls running at once per token and per account on one instance (each instance has its own slots); see
  // docs/decisions.md for why 2 and 4.
  MAX_CALLS_IN_FLIGHT_PER_TOKEN: z.coerce.number().int().min(1).max(1000).default(2),
  MAX_CALLS_IN_FLIGHT_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(4),
  // The same while another account is active on the instance: calls of one account at once only take CPU from others'.
  MAX_CALLS_IN_FLIGHT_PER_ACCOUNT_SHARED: z.coerce.number().int().min(1).max(1000).default(1),
  // Calls of all accounts running at once on one instance, as many as the database pool's connections: past them a
  // call waits in its account's line, served in fair turns, rather than in the pool's one line.
  MAX_CALLS_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(16),
  // Calls of one token, and of one account, waiting for a slot (past it: 429 at once), and how long each waits.
  MAX_QUEUED_CALLS: z.coerce.number().int().min(0).max(10_000).default(100),
  CALL_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  // Seconds after an arrears cycle's end before runs invoice it, so that late events still count (at most a week).
  BILLING_GRACE_PERIOD: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(DEFAULT_BILLING_GRACE_SECONDS),
  // Seconds an invoice stays a DRAFT after it is due, re-priced by every run (at most 30 days); 0: final at once.
  INVOICE_DRAFT_PERIOD: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .default(0),
  // Whether this instance bills every account at now by itself (services/billing/scheduler.ts); several may.
  BILLING_SCHEDULER: z.stringbool({ error: "must be true or false" }).default(true),
  // Seconds between the scheduler's ticks (each does one bounded billing call per account it reaches).
  BILLING_SCHEDULER_INTERVAL: z.coerce
    .number({ error: "must be a whole number of seconds" })
    .int("must be a whole number of seconds")
    .min(1, "must be at least 1 second")
    .max(86_400, "must be at most 86400 seconds (a day)")
    .default(DEFAULT_SCHEDULER_INTERVAL_SECONDS),
  // Seconds before each webhook retry, after the first attempt (made at once); all spent: the delivery is FAILED.
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .transform((text, ctx) => {
      const schedule = parseRetrySchedule(text);
      if (typeof schedule !== "string") return schedule;
      ctx.addIssue({ code: "custom", message: schedule });
      return z.NEVER;
    }),
  // Lets webhook endpoints use http and reach private, loopback and link-local addresses (development only).
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.stringbool().default(false),
  // Days audit log entries are kept (docs/decisions.md, "The audit log"): then a TTL index or the purge deletes them.
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
  // Days an export and its file are kept (docs/decisions.md, "Exports"): then the export worker deletes them.
  EXPORT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(7),
  // Keys sealing webhook signing secrets at rest (auth/secret-box.ts): the first seals, all open; none: stored as is.
  WEBHOOK_SECRET_KEYS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      const keys = text === undefined ? [] : parseSealingKeys(text);
      if (typeof keys !== "string") return keys;
      ctx.addIssue({ code: "custom", message: keys });
      return z.NEVER;
    }),
});
export type Config = z.infer<typeof configSchema>;

/** Parses the environment; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  const parsed = configSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
  console.error(`Invalid configuration:\n${problems}`);
  process.exit(1);
}
