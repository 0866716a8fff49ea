import { randomBytes } from "node:crypto";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { MongoClient, ObjectId } from "mongodb";
import { afterAll, beforeAll, inject } from "vitest";
import { type RunningService, type ServiceOptions, startService } from "../../src/app.js";
import type { SealingKey } from "../../src/auth/secret-box.js";
import type { RateLimits } from "../../src/context.js";
import type { Logger } from "../../src/logger.js";
import type { CallLimits } from "../../src/middleware/calls-in-flight.js";
import type { Hooks } from "../../src/repositories/hooks.js";
import type { AppRouter } from "../../src/routers/index.js";
import type { ClosingTiming } from "../../src/services/reports/closing.js";
import type { WebhookSettings } from "../../src/services/webhook-worker.js";
import "./provided-context.js";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export interface RestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestServer {
  url: string;
  service: RunningService;
  /** A new account with its first token, made through the admin REST API (`fields`: more of its body, testClock…). */
  newAccount(name?: string, fields?: Record<string, unknown>): Promise<{ accountId: string; token: string }>;
  /** JSON over REST; `body` is parsed JSON (or the raw text when the response is not JSON). */
  rest<T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<RestResponse<T>>;
  trpc(token?: string): ReturnType<typeof createTRPCClient<AppRouter>>;
  close(): Promise<void>;
}

/** What a test server may be started with; every other setting is the tests' own (see `startTestServer`). */
export interface TestServerOptions {
  rateLimits?: RateLimits;
  /** Calls in flight per token and per account (generous by default). */
  callLimits?: CallLimits;
  hooks?: Hooks;
  billingGraceMs?: number;
  /** INVOICE_DRAFT_PERIOD in ms (0 unless asked for: invoices final at once). */
  invoiceDraftMs?: number;
  /** Webhook delivery settings: without them the service runs no delivery worker. */
  webhooks?: WebhookSettings;
  /** Where the service logs (silent by default). */
  logger?: Logger;
  /** WEBHOOK_SECRET_KEYS: signing secrets are stored unsealed without them. */
  sealingKeys?: SealingKey[];
  /** METRICS_TOKEN: /metrics is open without it. */
  metricsToken?: string;
  /** PUBLIC_URL: the document's `servers` is `/` without it. */
  publicUrl?: string;
  /** When upkeep ticks close the reports' months (the service's default without it). */
  reportClosing?: ClosingTiming;
}

/** Months that never close: a century after their end. */
const NEVER_CLOSED: ClosingTiming = { afterMonthEndMs: 100 * 365 * 86_400_000, recordMarginMs: 0 };

/** Limits no test reaches by accident, so that every request still goes through the counting. */
const GENEROUS_RATE_LIMITS: RateLimits = { perWindow: 1_000_000, ingestPerWindow: 1_000_000, windowSeconds: 60 };

/** Slots no test fills by accident, so that every call still goes through the gate. */
const GENEROUS_CALL_LIMITS: CallLimits = {
  perToken: 1000,
  perAccount: 1000,
  perInstance: 10_000,
  queued: 1000,
  queueMs: 60_000,
};

/** A service on a free port with a database of its own inside the run's database server, and `settings`. */
const startOwnService = async (settings: Partial<ServiceOptions> & Pick<ServiceOptions, "adminToken">) =>
  withInspectionDb(
    await startService({
      mongodbUri: inject("mongodbUri"),
      dbName: `test_${randomBytes(6).toString("hex")}`,
      host: "127.0.0.1",
      port: 0,
      maxBodyBytes: 1024 * 1024,
      billingGraceMs: 0,
      ...settings,
    }),
  );

/** A second instance of the service on `server`'s own database, as another process of one deployment would be. */
export const startTwinService = (server: TestServer, settings: Partial<ServiceOptions> = {}) =>
  startOwnService({ adminToken: undefined, dbName: server.service.db.databaseName, ...settings });

/**
 * A test server and its twin (startTwinService), started before the file's tests and closed after them: `started`
 * hands them to the file, e.g. `useServerAndTwin((both) => ({ server, twin } = both))`.
 */
export function useServerAndTwin(started: (both: { server: TestServer; twin: RunningService }) => void) {
  let both: { server: TestServer; twin: RunningService } | undefined;
  beforeAll(async () => {
    const server = await startTestServer();
    both = { server, twin: await startTwinService(server) };
    started(both);
  });
  afterAll(async () => {
    await both?.twin.close();
    await both?.server.close();
  });
}

/** A service started with no settings (no ADMIN_TOKEN, no rate limits) on a database of its own, for `use`. */
export async function withBareService<T>(use: (service: RunningService) => Promise<T>): Promise<T> {
  const service = await startOwnService({ adminToken: undefined });
  try {
    return await use(service);
  } finally {
    await service.db.dropDatabase();
    await service.close();
  }
}

/**
 * The service with `db` swapped for the same database reached through a client of the tests' own: what a test
 * reads or changes directly is not the service's traffic, which `pnpm check:indexes` captures from its client.
 */
async function withInspectionDb(service: RunningService): Promise<RunningService> {
  const client = await MongoClient.connect(inject("mongodbUri"));
  return {
    ...service,
    db: client.db(service.db.databaseName),
    async close(gracePeriodMs) {
      await client.close();
      return service.close(gracePeriodMs);
    },
  };
}

/**
 * A real server on a free port, backed by a database of its own inside the run's database server. Billing tests
 * bill at the very end of cycles, so the test server has no grace period unless asked for one (`billingGraceMs`;
 * the service's default, BILLING_GRACE_PERIOD, is an hour).
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const service = await startOwnService({
    adminToken: ADMIN_TOKEN,
    maxBodyBytes: 5 * 1024 * 1024,
    rateLimits: options.rateLimits ?? GENEROUS_RATE_LIMITS,
    callLimits: options.callLimits ?? GENEROUS_CALL_LIMITS,
    hooks: options.hooks,
    billingGraceMs: options.billingGraceMs ?? 0,
    invoiceDraftMs: options.invoiceDraftMs ?? 0,
    webhooks: options.webhooks,
    logger: options.logger,
    sealingKeys: options.sealingKeys,
    metricsToken: options.metricsToken,
    publicUrl: options.publicUrl,
    // Tests write exports when they choose to (service.runExports): no look of the worker comes between.
    exportIntervalMs: 3_600_000,
    // Tests take migrations' batches when they choose to (service.migrations.tick): a timer's tick racing a request's
    // first batch made plans.test.ts's "resumed by the worker" flaky under load.
    planMigrationIntervalMs: 3_600_000,
    // Upkeep steps (voids applied, stored names and reservation refs claimed) when tests take them
    // (service.upkeep.tick): reservations.refs.test.ts counts the migration's steps itself.
    upkeepIntervalMs: 3_600_000,
    // Months closed only where a test asks (reports.closing.test.ts): other tests' ticks stay as quick as they were.
    reportClosing: options.reportClosing ?? NEVER_CLOSED,
  });

  const rest: TestServer["rest"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(service.url + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed as any };
  };

  return {
    url: service.url,
    service,
    rest,
    async newAccount(name = `account-${randomBytes(3).toString("hex")}`, fields = {}) {
      const { status, body } = await rest("POST", "/admin/accounts", { token: ADMIN_TOKEN, body: { name, ...fields } });
      if (status !== 201) throw new Error(`could not create an account: ${status} ${JSON.stringify(body)}`);
      return { accountId: body.account.id, token: body.token };
    },
    trpc(token) {
      return createTRPCClient<AppRouter>({
        links: [
          httpLink({ url: `${service.url}/trpc`, headers: () => (token ? { authorization: `Bearer ${token}` } : {}) }),
        ],
      });
    },
    async close() {
      await service.db.dropDatabase();
      await service.close();
    },
  };
}

/** A fresh 24-hex id: it names nothing stored. */
export const newId = () => new ObjectId().toHexString();

/** The service's error code carried by a tRPC client error. */
export async function trpcErrorCode(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError) return (error.data as { code: string }).code;
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** Every item of a REST list, following `nextCursor`; fails if an item shows up twice. */
export async function walkRestPages(
  server: TestServer,
  token: string,
  path: string,
  key: string,
  limit: number,
): Promise<{ ids: string[]; pages: number; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor && { cursor }) });
    const separator = path.includes("?") ? "&" : "?";
    const { status, body } = await server.rest("GET", `${path}${separator}${query}`, { token });
    if (status !== 200) throw new Error(`page ${pages + 1}: ${status} ${JSON.stringify(body)}`);
    pages += 1;
    totals.push(body.total);
    ids.push(...body[key].map((item: { id: string }) => item.id));
    if (!body.hasMore) {
      if ("nextCursor" in body) throw new Error("the last page carries a nextCursor");
      return { ids, pages, totals };
    }
    cursor = body.nextCursor;
  }
}
