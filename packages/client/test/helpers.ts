import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import {
  type AutoPaginator,
  type BillingClient,
  type BillingClientOptions,
  createBillingClient,
} from "../src/index.js";

/** One real server per test file (its own database), closed after the file. */
export function useTestServer(): { readonly server: TestServer } {
  const holder = {} as { server: TestServer };
  beforeAll(async () => {
    holder.server = await startTestServer();
  });
  afterAll(() => holder.server.close());
  return holder;
}

/** A new account and an SDK client for it: every test that counts things gets data of its own. */
export async function newClient(
  server: TestServer,
  options: Partial<BillingClientOptions> = {},
): Promise<{ client: BillingClient; accountId: string; token: string }> {
  const { accountId, token } = await server.newAccount();
  return { client: createBillingClient({ baseUrl: server.url, token, ...options }), accountId, token };
}

/** The rejection of a call, or a test failure when the call succeeds. */
export async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** A fetch passing every request through to the server, recording each request's URL. */
export function countingFetch() {
  const urls: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    urls.push(String(input instanceof Request ? input.url : input));
    return globalThis.fetch(input, init);
  };
  return { fetch, urls };
}

/** A fetch recording the Idempotency-Key header of each request (null when absent). */
export function keyRecordingFetch(inner: typeof globalThis.fetch = globalThis.fetch) {
  const keys: (string | null)[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    keys.push(new Headers(init?.headers).get("idempotency-key"));
    return inner(input, init);
  };
  return { fetch, keys };
}

/**
 * A fetch whose first `failures` requests reach the server and are served, but whose answers are lost
 * (a connection reset after the server did the work): the hardest case for "stored once".
 */
export function lostAnswerFetch(failures = 1) {
  const counter = { calls: 0 };
  const fetch: typeof globalThis.fetch = async (input, init) => {
    counter.calls += 1;
    const response = await globalThis.fetch(input, init);
    if (counter.calls > failures) return response;
    await response.arrayBuffer();
    throw new TypeError("fetch failed: socket hang up");
  };
  return { fetch, counter };
}

/** Sizes of the pages a paginator walks, and the ids of every item in order. */
export async function walk<TPage>(
  paginator: AutoPaginator<TPage, { id: string }>,
  itemsOf: (page: TPage) => { id: string }[],
): Promise<{ pageSizes: number[]; ids: string[] }> {
  const pageSizes: number[] = [];
  const ids: string[] = [];
  for await (const page of paginator.pages()) {
    pageSizes.push(itemsOf(page).length);
    ids.push(...itemsOf(page).map((item) => item.id));
  }
  return { pageSizes, ids };
}

/**
 * What the server stored for a customer's measurements: how many documents, and one meter's value on `day` in
 * micro-units.
 */
export async function storedMeasurements(
  server: TestServer,
  accountId: string,
  customerId: string,
  meterId: string,
  day: string,
) {
  const count = await server.service.db.collection("measurements").countDocuments({ accountId, customerId });
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const byDay = await server.service.repositories.measurements.byDay(accountId, customerId, meterId, day, next);
  return { count, micros: byDay.get(day) ?? 0n };
}

/** A 24-hex id that names nothing. */
export const unknownId = () => randomBytes(12).toString("hex");

/** Runs `make(i)` for i = 0..count-1 one after the other (creation order is the list order under test). */
export async function inSequence<T>(count: number, make: (index: number) => Promise<T>): Promise<T[]> {
  const made: T[] = [];
  for (let index = 0; index < count; index += 1) made.push(await make(index));
  return made;
}

/** 25 items read 4 at a time: six full pages and one of a single item. */
export const PAGINATION = { count: 25, limit: 4, pageSizes: [4, 4, 4, 4, 4, 4, 1] } as const;

/** What a gateway does with a request: never answer, answer by itself, or pass it on and hold the answer a while. */
export type GatewayAnswer =
  | "hang"
  | { status: number; headers?: Record<string, string>; body?: string }
  | { holdAnswerMs: number };

/** Headers a gateway must not copy: it reads and writes whole bodies, and speaks to its own peer. */
const HOP_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding", "content-encoding"]);
const passable = (headers: IncomingHttpHeaders | Headers) => {
  const passed: Record<string, string> = {};
  const pass = (value: unknown, name: string) => {
    if (typeof value === "string" && !HOP_HEADERS.has(name)) passed[name] = value;
  };
  if (headers instanceof Headers) headers.forEach(pass);
  else for (const [name, value] of Object.entries(headers)) pass(value, name);
  return passed;
};

/**
 * A tiny HTTP server in front of the test server, as a slow, hanging or failing gateway would be: its nth request
 * (from 1) is handled as `plan(n)` says. `requests` counts what reached it; `close()` also drops hanging requests.
 */
export async function startGateway(target: string, plan: (request: number) => GatewayAnswer) {
  let requests = 0;
  const server = createServer(async (req, res) => {
    const answer = plan(++requests);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (answer === "hang") return;
    if ("status" in answer) {
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers }).end(answer.body ?? "");
      return;
    }
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const upstream = await fetch(`${target}${req.url}`, { method: req.method, headers: passable(req.headers), body });
    const text = await upstream.text();
    await new Promise((resolve) => setTimeout(resolve, answer.holdAnswerMs));
    if (!res.destroyed) res.writeHead(upstream.status, passable(upstream.headers)).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
