import { randomBytes } from "node:crypto";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { describe, expect, inject, it } from "vitest";
import { startService } from "../src/app.js";
import { readinessOf } from "../src/observability/readiness.js";
import { appRouter } from "../src/routers/index.js";
import { expectError } from "./support/assertions.js";
import { billingAccount, committed } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { parseMetrics, sampleValue } from "./support/metrics.js";
import { FAST, startReceiver } from "./support/webhook-receiver.js";
import "./support/provided-context.js";

/** /ready and /metrics, as an operator's probes and Prometheus read them (docs/decisions.md, "Operations"). */
const METRICS_TOKEN = "metrics-token-0123456789";
const faults = testHooks();
const server = useTestServer({ webhooks: FAST, hooks: faults.hooks });
const guarded = useTestServer({ metricsToken: METRICS_TOKEN });

const scrape = async (token?: string) => {
  const response = await fetch(`${server.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await response.text());
};

/** Scrapes until `done` holds for the samples: the worker counts an attempt just after the receiver answered it. */
async function scrapeUntil(done: (samples: ReturnType<typeof parseMetrics>) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const samples = await scrape();
    if (done(samples) || Date.now() > deadline) return samples;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("GET /ready", () => {
  it("answers 200 with each check when the database answers and the webhook worker polls", async () => {
    const response = await server.rest("GET", "/ready");
    expect(response).toMatchObject({
      status: 200,
      body: { status: "ready", checks: { accepting: "ok", database: "ok", indexes: "ok", webhookWorker: "ok" } },
    });
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("answers 503 naming the database once the database cannot be reached, while /health still answers", async () => {
    const proxy = await tcpProxyTo(new URL(inject("mongodbUri")));
    const service = await startService(ownDatabase(proxy.uri));
    try {
      expect((await fetch(`${service.url}/ready`)).status).toBe(200);
      await proxy.cut();
      const response = await fetch(`${service.url}/ready`);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        status: "unavailable",
        checks: { accepting: "ok", database: "failing", indexes: "ok" },
      });
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
    } finally {
      await service.close();
      await proxy.cut();
    }
  });

  it("answers 503 naming the webhook worker once its polls stop ending (a database that hangs)", async () => {
    const proxy = await tcpProxyTo(new URL(inject("mongodbUri")));
    const webhooks = { ...FAST, timeoutMs: 1_000 };
    const service = await startService({ ...ownDatabase(proxy.uri), webhooks });
    try {
      expect(await (await fetch(`${service.url}/ready`)).json()).toMatchObject({ checks: { webhookWorker: "ok" } });
      proxy.freeze();
      let report: any;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
        const response = await fetch(`${service.url}/ready`);
        report = { httpStatus: response.status, ...(await response.json()) };
        if (report.checks.webhookWorker === "failing") break;
      }
      expect(report).toMatchObject({
        httpStatus: 503,
        status: "unavailable",
        checks: { database: "failing", webhookWorker: "failing" },
      });
    } finally {
      proxy.thaw();
      await service.close();
      await proxy.cut();
    }
  });

  it("is ready only when every check passes", () => {
    expect(readinessOf({ database: true, webhookWorker: true }).status).toBe("ready");
    expect(readinessOf({ database: true, webhookWorker: false })).toEqual({
      status: "unavailable",
      checks: { database: "ok", webhookWorker: "failing" },
    });
  });
});

describe("GET /metrics", () => {
  it("counts requests by route template and status, events stored, invoices made and webhook attempts", async () => {
    const receiver = await startReceiver();
    try {
      const account = await billingAccount(server);
      const hook = { url: receiver.url, eventTypes: ["invoice.created"] };
      expect((await server.rest("POST", "/webhook-endpoints", { token: account.token, body: hook })).status).toBe(201);
      const before = await scrape();
      const customerRoute = { method: "GET", route: "/customers/{customerId}" };

      for (const id of [account.customerId, account.customerId, "6650f0f0f0f0f0f0f0f0f0f0"])
        await server.rest("GET", `/customers/${id}`, { token: account.token });
      const events = ["a", "b", "a"].map((ref) => ({
        ref,
        name: "api_call",
        customerAlias: "acme",
        timestamp: "2024-03-01T12:00:00Z",
      }));
      const ingested = await server.rest("POST", "/events", { token: account.token, body: { events } });
      expect(ingested.body).toEqual({ stored: 2, duplicates: ["a"] });
      // January and February of 10 × 99.99: two invoices.
      await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(10, 99.99)] });
      expect((await account.run("2024-03-01T00:00:00Z")).invoicesCreated).toBe(2);

      const after = await scrapeUntil(
        (samples) => sampleValue(samples, "billing_webhook_attempts_total", { outcome: "SUCCEEDED" }) >= 2,
      );
      const increase = (name: string, labels: Record<string, string> = {}) =>
        sampleValue(after, name, labels) - sampleValue(before, name, labels);
      const requests = "billing_http_request_duration_seconds_count";
      expect(increase(requests, { ...customerRoute, status: "200" })).toBe(2);
      expect(increase(requests, { ...customerRoute, status: "404" })).toBe(1);
      expect(after.some((sample) => sample.labels.route?.includes(account.customerId))).toBe(false);
      expect(increase("billing_events_ingested_total")).toBe(2);
      expect(increase("billing_invoices_created_total")).toBe(2);
      expect(increase("billing_webhook_attempts_total", { outcome: "SUCCEEDED" })).toBe(2);
      // The worker's polls and its two deliveries (each at least its record's write) count as the webhooks'.
      expect(increase("billing_db_commands_total", { origin: "webhooks" })).toBeGreaterThanOrEqual(2);
      expect(increase("billing_task_duration_seconds_count", { task: "billing_run" })).toBe(1);
      expect(sampleValue(after, "billing_task_duration_seconds_count", { task: "webhook_poll" })).toBeGreaterThan(0);
      expect(sampleValue(after, "billing_db_pool_connections", { state: "open" })).toBeGreaterThan(0);
    } finally {
      await receiver.close();
    }
  });

  it("counts the database commands a call sends as the request's, and the webhook worker's as its own", async () => {
    const account = await billingAccount(server);
    const commands = (samples: ReturnType<typeof parseMetrics>, origin: string) =>
      sampleValue(samples, "billing_db_commands_total", { origin });
    const before = await scrape();
    // No call meanwhile (a scrape reads no database): only the workers' polls count, the webhook worker's (a poll a
    // second) as webhooks.
    const idle = await scrapeUntil((samples) => commands(samples, "webhooks") > commands(before, "webhooks"));
    expect(commands(idle, "webhooks")).toBeGreaterThan(commands(before, "webhooks"));
    expect(commands(idle, "request")).toBe(commands(before, "request"));

    expect((await server.rest("GET", `/customers/${account.customerId}`, { token: account.token })).status).toBe(200);
    // At least the customer's read; the token's check may be served from the instance's cache.
    expect(commands(await scrape(), "request")).toBeGreaterThan(commands(idle, "request"));
  });

  it("labels a tRPC call by its procedure, a batch of several as (batch), any other name as (unknown)", async () => {
    const account = await billingAccount(server);
    const before = await scrape();
    const headers = { authorization: `Bearer ${account.token}` };
    const trpcGet = (path: string) => fetch(`${server.url}/trpc/${path}`, { headers });

    await account.trpc().token.current.query({});
    await account.trpc().token.current.query({});
    const inputs = (calls: number) =>
      encodeURIComponent(JSON.stringify(Object.fromEntries([...Array(calls).keys()].map((index) => [index, {}]))));
    expect((await trpcGet(`token.current,token.current?batch=1&input=${inputs(2)}`)).status).toBe(200);
    // One procedure in a batch is that procedure's call.
    expect((await trpcGet(`token.current?batch=1&input=${inputs(1)}`)).status).toBe(200);
    const madeUp = `made.up${randomBytes(4).toString("hex")}`;
    for (const path of [madeUp, `${madeUp}?batch=1`, `token.current,${madeUp}`, "%E0%A4%A"])
      expect((await trpcGet(path)).status).toBeGreaterThanOrEqual(400);

    const after = await scrape();
    const requests = "billing_http_request_duration_seconds_count";
    const increase = (route: string, status: string) =>
      sampleValue(after, requests, { method: "GET", route, status }) -
      sampleValue(before, requests, { method: "GET", route, status });
    // Two calls of the client, and the batch of one.
    expect(increase("/trpc/token.current", "200")).toBe(3);
    expect(increase("/trpc/(batch)", "200")).toBe(1);
    const unknown = (samples: typeof after) =>
      samples
        .filter((sample) => sample.name === requests && sample.labels.route === "/trpc/(unknown)")
        .reduce((total, sample) => total + sample.value, 0);
    // The made-up name alone, in a batch of one, not a batch without `batch=1`, and a path that does not decode.
    expect(unknown(after) - unknown(before)).toBe(4);
    const trpcRoutes = new Set(
      after.flatMap(({ labels }) => (labels.route?.startsWith("/trpc") ? [labels.route] : [])),
    );
    expect(trpcRoutes.has("/trpc")).toBe(false);
    expect([...trpcRoutes].filter((route) => route.includes("made") || route.includes("%"))).toEqual([]);
    // Every label is one of the router's procedures, (batch) or (unknown): as many series as the router allows.
    const procedures = new Set(Object.keys(appRouter._def.procedures).map((name) => `/trpc/${name}`));
    const bounded = (route: string) => procedures.has(route) || /^\/trpc\/\((batch|unknown)\)$/.test(route);
    expect([...trpcRoutes].filter((route) => !bounded(route))).toEqual([]);
  });

  it("counts invoices finalized, payments and credit notes and their amounts by currency, each once", async () => {
    const account = await billingAccount(server);
    const before = await scrape();
    // USD: 2 seats × 10.00 a month from January 1; EUR, another customer: 1 × 5.00 from February 1.
    const usd = await account.contract({ startDate: "2024-01-01T00:00:00Z", products: [committed(2, 10)] });
    const euroCustomer = await account.newCustomer({ name: "Euro Co" });
    const eur = await account.contract({
      customerId: euroCustomer,
      currency: "EUR",
      startDate: "2024-02-01T00:00:00Z",
      products: [committed(1, 5)],
    });
    // As of March 1: January and February in USD (20.00 each), February in EUR (5.00), final at once.
    expect((await account.run("2024-03-01T00:00:00Z")).invoicesCreated).toBe(3);
    const [january] = await account.invoices(usd.id);
    const [february] = await account.invoices(eur.id);
    expect([january.amount, january.currency, january.status]).toEqual([20, "USD", "FINALIZED"]);
    expect([february.amount, february.currency, february.status]).toEqual([5, "EUR", "FINALIZED"]);

    // A payment of 12.50 USD whose request fails after its change is logged: the next read applies it, and the
    // caller's retry is refused as already recorded. Logged once, so counted once.
    const payment = { amount: 12.5, transactionId: `tx-${randomBytes(4).toString("hex")}` };
    const pay = () => server.rest("POST", `/invoices/${january.id}/payments`, { token: account.token, body: payment });
    faults.fail("invoices.applyChange", january.id, 1);
    expect((await pay()).status).toBe(500);
    const read = await server.rest("GET", `/invoices/${january.id}`, { token: account.token });
    expect(read.body.invoice).toMatchObject({ amountPaid: 12.5, amountDue: 7.5 });
    expectError(await pay(), 409, "CONFLICT");
    // A credit note of 3.00 EUR off what the EUR invoice owes (5.00 − 3.00 = 2.00 due), applied twice: its request
    // waits after logging it while a read of the invoice applies it too. Logged once, so counted once.
    const note = { invoiceId: february.id, amount: 3, reason: "OTHER", refund: "OFFSET" };
    const pause = faults.pauseOnce("invoices.applyChange", february.id);
    const credited = account.post("/credit-notes", note, 201);
    await pause.reached;
    const meanwhile = await server.rest("GET", `/invoices/${february.id}`, { token: account.token });
    expect(meanwhile.body.invoice).toMatchObject({ amountCredited: 3, amountDue: 2 });
    pause.release();
    expect((await credited).creditNote).toMatchObject({ amount: 3, currency: "EUR" });
    // A run again as of March 1 finalizes nothing more.
    expect((await account.run("2024-03-01T00:00:00Z")).invoicesCreated).toBe(0);
    await account.allInvoices();

    const after = await scrape();
    const increase = (name: string, currency: string) =>
      sampleValue(after, name, { currency }) - sampleValue(before, name, { currency });
    // Finalized: 2 in USD of 20.00 + 20.00 = 40.00; 1 in EUR of 5.00.
    expect(increase("billing_invoices_finalized_total", "USD")).toBe(2);
    expect(increase("billing_invoiced_amount_total", "USD")).toBe(40);
    expect(increase("billing_invoices_finalized_total", "EUR")).toBe(1);
    expect(increase("billing_invoiced_amount_total", "EUR")).toBe(5);
    // Paid: 1 payment of 12.50 USD, none in EUR.
    expect(increase("billing_payments_total", "USD")).toBe(1);
    expect(increase("billing_payments_amount_total", "USD")).toBe(12.5);
    expect(increase("billing_payments_total", "EUR")).toBe(0);
    // Credited: 1 note of 3.00 EUR, none in USD.
    expect(increase("billing_credit_notes_total", "EUR")).toBe(1);
    expect(increase("billing_credit_notes_amount_total", "EUR")).toBe(3);
    expect(increase("billing_credit_notes_total", "USD")).toBe(0);
  });

  it("asks for METRICS_TOKEN when it is set: 401 without it or with another token, 200 with it", async () => {
    const missing = await guarded.rest("GET", "/metrics");
    expectError(missing, 401, "UNAUTHORIZED");
    expect(missing.headers.get("www-authenticate")).toBe("Bearer");
    expectError(await guarded.rest("GET", "/metrics", { token: "another-token-0123456789" }), 401, "UNAUTHORIZED");
    const allowed = await guarded.rest("GET", "/metrics", { token: METRICS_TOKEN });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain("billing_http_request_duration_seconds");
  });

  it("answers only GET on /ready and /metrics", async () => {
    for (const path of ["/ready", "/metrics"]) {
      const response = await server.rest("POST", path, { body: {} });
      expectError(response, 405, "METHOD_NOT_SUPPORTED");
      expect(response.headers.get("allow")).toBe("GET");
    }
  });
});

/** A service of its own, reaching the test database at `mongodbUri`. */
const ownDatabase = (mongodbUri: string) => ({
  mongodbUri,
  dbName: `test_${randomBytes(6).toString("hex")}`,
  host: "127.0.0.1",
  port: 0,
  adminToken: undefined,
  maxBodyBytes: 1024 * 1024,
});

/** A TCP relay to the test database (its port or socket) that the test can freeze (a database that hangs) or cut. */
async function tcpProxyTo(target: URL) {
  const sockets = new Set<Socket>();
  /** Connections made while frozen: never relayed, closed on thawing (the driver connects again). */
  const held = new Set<Socket>();
  let frozen = false;
  const relay: Server = createServer((client) => {
    if (frozen) return void held.add(client.pause());
    // The embedded FerretDB listens on a Unix socket, its path the URI's host (percent-encoded), or on a port.
    const upstream = target.port
      ? createConnection(Number(target.port), target.hostname)
      : createConnection(decodeURIComponent(target.hostname));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const uri = new URL(target);
  uri.host = `127.0.0.1:${(relay.address() as { port: number }).port}`;
  return {
    uri: uri.toString(),
    /** Connections stay open and nothing more goes through, either way. */
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    /** What waited goes through, as a database that answers again. */
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
      for (const socket of held) socket.destroy();
    },
    async cut() {
      const closed = new Promise((resolve) => relay.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
