import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { type IncomingMessage, request } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { MongoClient } from "mongodb";
import { afterAll, describe, expect, inject, it } from "vitest";
import "./support/provided-context.js";

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const ADMIN_TOKEN = "shutdown-admin-token-0123456789";
const DB_NAME = `test_${randomBytes(6).toString("hex")}`;
const EVENTS_PER_BATCH = 100;
const CLIENTS = 4;
/** A client still served this many batches it sent after SIGTERM means the service kept taking new work. */
const MAX_BATCHES_AFTER_SIGTERM = 20;

/** Services this file started; a failed test must not leave one running. */
const started: ChildProcess[] = [];

afterAll(async () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  const client = await MongoClient.connect(inject("mongodbUri"));
  await client.db(DB_NAME).dropDatabase();
  await client.close();
});

interface ServiceProcess {
  url: string;
  /** Every JSON line the process has logged so far. */
  logs: Record<string, unknown>[];
  /** Resolves at the first log line whose message starts with `msg`. */
  logged(msg: string): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  child: ChildProcess;
}

/** The real service, as `pnpm start` runs it (one node process, so that it gets the signal itself), listening. */
async function startServiceProcess(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const service = spawnServiceProcess(env);
  const listening = await service.logged("listening");
  return { url: String(listening.url), ...service };
}

/** The service's process, started: its logs as they come, and how it exits. */
function spawnServiceProcess(env: Record<string, string>): Omit<ServiceProcess, "url"> {
  // Under `pnpm check:indexes`, the service's process captures its query shapes too.
  const capture = process.env.QUERY_SHAPES_DIR ? ["--import", "./test/support/query-shape-capture.ts"] : [];
  const child = spawn(process.execPath, ["--import", "tsx", ...capture, "src/main.ts"], {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      MONGODB_URI: inject("mongodbUri"),
      MONGODB_DB: DB_NAME,
      PORT: "0",
      ADMIN_TOKEN,
      LOG_LEVEL: "info",
      // Off unless a test turns it on: a background run would bill what the test has not asked for.
      BILLING_SCHEDULER: "false",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  const logs: Record<string, unknown>[] = [];
  const waiting: { msg: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  createInterface({ input: child.stdout! }).on("line", (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    logs.push(line);
    for (const waiter of waiting) if (String(line.msg).startsWith(waiter.msg)) waiter.resolve(line);
  });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const logged = (msg: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const earlier = logs.find((line) => String(line.msg).startsWith(msg));
      if (earlier) return resolve(earlier);
      waiting.push({ msg, resolve });
      void exited.then(({ code }) =>
        reject(new Error(`the service exited (${code}) before logging "${msg}": ${stderr}`)),
      );
    });
  return { logs, logged, exited, child };
}

const batch = (label: string) => ({
  label,
  events: Array.from({ length: EVENTS_PER_BATCH }, (_, index) => ({
    name: "api_call",
    timestamp: new Date(Date.UTC(2025, 0, 1) + index * 1000).toISOString(),
    customerAlias: "shutdown-co",
    ref: `${label}-${index}`,
  })),
});
type Batch = ReturnType<typeof batch>;

async function postEvents(url: string, token: string, events: Batch["events"]) {
  const response = await fetch(`${url}/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ events }),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * A POST /events whose headers the service has received (it answered `100 Continue`) but whose body is held back
 * until `send()`: a request the service certainly has in progress.
 */
async function heldRequest(url: string, token: string, events: Batch["events"]) {
  const body = JSON.stringify({ events });
  const req = request(`${url}/events`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      expect: "100-continue",
    },
  });
  const response = new Promise<IncomingMessage>((resolve, reject) =>
    req.once("response", resolve).once("error", reject),
  );
  const continued = new Promise<void>((resolve) => req.once("continue", resolve));
  req.flushHeaders();
  await continued;
  return {
    response,
    async send() {
      req.end(body);
      const res = await response;
      let text = "";
      for await (const chunk of res) text += chunk;
      return { status: res.statusCode, connection: res.headers.connection, body: JSON.parse(text) };
    },
  };
}

/** Every ref stored in the account, from GET /events page by page. */
async function storedRefs(url: string, token: string): Promise<string[]> {
  const refs: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = new URLSearchParams({
      startTime: "2025-01-01T00:00:00Z",
      endTime: "2025-01-02T00:00:00Z",
      limit: "1000",
      ...(cursor && { cursor }),
    });
    const response = await fetch(`${url}/events?${query}`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const { events } = (await response.json()) as { events: { id: string; ref: string }[] };
    refs.push(...events.map((event) => event.ref));
    if (events.length < 1000) return refs;
    cursor = events.at(-1)!.id;
  }
}

describe("start-up", () => {
  it("with a MONGODB_URI answering nothing, logs one line naming it (no password), exits 1 in 10 s", async () => {
    const startedAt = Date.now();
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    const service = spawnServiceProcess({
      MONGODB_URI: "mongodb://billing:s3cret-pass@127.0.0.1:1/?directConnection=true",
    });
    const { code } = await service.exited;
    expect(code).toBe(1);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    const errors = service.logs.filter((line) => line.level === 50 || line.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ msg: "the database does not answer: check MONGODB_URI" });
    expect(errors[0]!.uri).toBe("mongodb://…@127.0.0.1:1/?directConnection=true");
    expect(JSON.stringify(service.logs)).not.toContain("s3cret-pass");
    expect(service.logs.map((line) => line.msg)).not.toContain("database ready");
  });
});

describe("graceful shutdown", () => {
  it("on SIGTERM finishes requests in progress, exits 0, and loses or doubles no event across a restart", async () => {
    const first = await startServiceProcess({ SHUTDOWN_TIMEOUT_MS: "60000" });
    const created = await fetch(`${first.url}/admin/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Shutdown Co" }),
    });
    const { token } = (await created.json()) as { token: string };

    const acknowledged: Batch[] = [];
    let acknowledgedAfterSigterm = 0;
    const refused: Batch[] = [];
    const unexpected: string[] = [];
    let sigtermSent = false;
    let readyForSigterm!: () => void;
    const enoughAcknowledged = new Promise<void>((resolve) => (readyForSigterm = resolve));

    // Each client sends batches back to back until the service stops taking them.
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      let sentAfterSigterm = 0;
      for (let n = 0; ; n++) {
        const current = batch(`c${client}-b${n}`);
        if (sigtermSent && ++sentAfterSigterm > MAX_BATCHES_AFTER_SIGTERM)
          throw new Error(`client ${client} is still served after SIGTERM`);
        const outcome = await postEvents(first.url, token, current.events).catch((error: Error) => error);
        if (outcome instanceof Error) return void refused.push(current);
        if (outcome.status !== 200)
          unexpected.push(`${current.label}: ${outcome.status} ${JSON.stringify(outcome.body)}`);
        acknowledged.push(current);
        if (sigtermSent) acknowledgedAfterSigterm += 1;
        if (acknowledged.length >= 5 * CLIENTS) readyForSigterm();
      }
    });

    await enoughAcknowledged;
    const held = batch("held");
    const inProgress = await heldRequest(first.url, token, held.events);
    first.child.kill("SIGTERM");
    sigtermSent = true;
    await first.logged("shutting down");
    const heldOutcome = await inProgress.send();
    await Promise.all(clients);
    const firstExit = await first.exited;

    expect(heldOutcome).toMatchObject({
      status: 200,
      connection: "close",
      body: { stored: EVENTS_PER_BATCH, duplicates: [] },
    });
    acknowledged.push(held);
    expect(unexpected).toEqual([]);
    expect(firstExit).toEqual({ code: 0, signal: null });
    // Shutdown ran to its end (a request's log line may be written as its socket closes, so not necessarily last).
    const messages = first.logs.map((line) => line.msg);
    expect(messages.indexOf("stopped")).toBeGreaterThan(
      messages.indexOf("shutting down: finishing requests in progress"),
    );

    const second = await startServiceProcess();
    const acknowledgedRefs = acknowledged.flatMap((sent) => sent.events.map((event) => event.ref));
    const afterRestart = new Set(await storedRefs(second.url, token));
    expect(acknowledgedRefs.filter((ref) => !afterRestart.has(ref))).toEqual([]);

    let storedBeforeRefusal = 0;
    for (const retry of refused) {
      const outcome = await postEvents(second.url, token, retry.events);
      expect(outcome.status).toBe(200);
      expect(outcome.body.stored + outcome.body.duplicates.length).toBe(EVENTS_PER_BATCH);
      storedBeforeRefusal += outcome.body.duplicates.length;
    }
    const everyRef = [...acknowledged, ...refused].flatMap((sent) => sent.events.map((event) => event.ref));
    const stored = await storedRefs(second.url, token);
    expect(stored.length).toBe(everyRef.length);
    expect(new Set(stored)).toEqual(new Set(everyRef));
    console.log(
      `[shutdown] ${acknowledged.length} batches acknowledged (${acknowledgedAfterSigterm} of them sent before ` +
        `SIGTERM and answered after, ` +
        `plus the held one); ${refused.length} refused and retried (${storedBeforeRefusal} of their events had ` +
        `been stored); ` +
        `${stored.length} events stored once each`,
    );

    second.child.kill("SIGINT");
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 120_000);

  it("on SIGTERM the scheduler ends its call, the process exits 0; a restart bills each cycle once", async () => {
    const scheduled = { BILLING_SCHEDULER: "true", BILLING_SCHEDULER_INTERVAL: "1", SHUTDOWN_TIMEOUT_MS: "60000" };
    const first = await startServiceProcess(scheduled);
    const created = await fetch(`${first.url}/admin/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Scheduled Co" }),
    });
    const { token } = (await created.json()) as { token: string };
    const call = async (url: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(response.status).toBeLessThan(300);
      return (await response.json()) as any;
    };
    const { customer } = await call(first.url, "POST", "/customers", { name: "Scheduled Co" });
    // Monthly from Jan 2023 to Jan 2026: 3 × 12 = 36 cycles, all long due, more than a tick makes in a moment.
    const { contract } = await call(first.url, "POST", "/contracts", {
      customerId: customer.id,
      name: "Plan",
      startDate: "2023-01-01T00:00:00Z",
      endDate: "2026-01-01T00:00:00Z",
      status: "Expired",
      products: [{ displayName: "Seats", commitment: { units: 1, price: 5 } }],
    });
    const cyclesBilled = async (url: string) => {
      const { invoices } = await call(url, "GET", `/invoices?contractId=${contract.id}&limit=1000`);
      return (invoices as { billingCycle: { startTime: string } }[]).map((invoice) => invoice.billingCycle.startTime);
    };
    // The scheduler has started billing the account: SIGTERM now, most likely within its call.
    while ((await cyclesBilled(first.url)).length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    first.child.kill("SIGTERM");
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.logs.map((line) => line.msg)).toContain("stopped");

    const second = await startServiceProcess(scheduled);
    while ((await cyclesBilled(second.url)).length < 36) await new Promise((resolve) => setTimeout(resolve, 200));
    const cycles = await cyclesBilled(second.url);
    expect(new Set(cycles).size).toBe(36);
    second.child.kill("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });
    // Every tick that made invoices said so, the first process's last one (ended by SIGTERM) included: 36 in all.
    const ticks = [...first.logs, ...second.logs].filter((line) => line.msg === "billing scheduler tick");
    expect(ticks.reduce((total, line) => total + Number(line.invoicesCreated), 0)).toBe(36);
  }, 180_000);

  it("closes connections still busy after SHUTDOWN_TIMEOUT_MS and still exits 0", async () => {
    const service = await startServiceProcess({ SHUTDOWN_TIMEOUT_MS: "300" });
    const created = await fetch(`${service.url}/admin/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Stuck Co" }),
    });
    const { token } = (await created.json()) as { token: string };
    // The body of this request never comes.
    const stuck = await heldRequest(service.url, token, batch("stuck").events);
    service.child.kill("SIGTERM");

    await expect(stuck.response).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(service.logs.map((line) => line.msg)).toContain(
      "shutdown timeout reached: connections still open were closed",
    );
  }, 60_000);
});
