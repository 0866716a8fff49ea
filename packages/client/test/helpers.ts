import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { createBillingClient, type AutoPaginator, type BillingClient, type BillingClientOptions } from "../src/index.js";

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

/** What the server stored for a customer's measurements: how many documents, and one meter's value on `day` in micro-units. */
export async function storedMeasurements(server: TestServer, accountId: string, customerId: string, meterId: string, day: string) {
  const count = await server.service.db.collection("measurements").countDocuments({ accountId, customerId });
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const micros = await server.service.repositories.measurements.sumByMeter(accountId, customerId, meterId, day, next);
  return { count, micros };
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
