import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../../server/test/support/server.js";
import {
  AuthenticationError,
  BillingError,
  ConflictError,
  ConnectionError,
  createAdminClient,
  createBillingClient,
  NotFoundError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "../src/index.js";

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ token } = await server.newAccount());
});
afterAll(() => server.close());

/** A fetch that fails the first `failures` calls in the given way, then passes through, counting calls. */
function flakyFetch(failures: number, fail: () => Promise<Response>) {
  const counter = { calls: 0 };
  const fetch: typeof globalThis.fetch = (input, init) => {
    counter.calls += 1;
    return counter.calls <= failures ? fail() : globalThis.fetch(input, init);
  };
  return { fetch, counter };
}

describe("typed errors", () => {
  it("maps each server answer to its class with the server's code and message", async () => {
    const client = createBillingClient({ baseUrl: server.url, token });
    await client.customers.create({ name: "Dup" });

    const conflict = await client.customers.create({ name: "Dup" }).catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ code: "CONFLICT", status: 409, message: expect.stringContaining("Dup") });

    const missing = await client.customers.get("nobody").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: "NOT_FOUND", status: 404 });

    const invalid = await client.customers.list({ limit: 0 }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues).toEqual([{ path: "limit", message: expect.any(String) }]);

    const unauthenticated = await createBillingClient({ baseUrl: server.url, token: "bill_nope" })
      .customers.list()
      .catch((error: unknown) => error);
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
    expect(unauthenticated).toBeInstanceOf(BillingError);
  });

  it("reports an unreachable server as a ConnectionError", async () => {
    const client = createBillingClient({ baseUrl: "http://127.0.0.1:9", token, maxRetries: 0 });
    await expect(client.customers.list()).rejects.toBeInstanceOf(ConnectionError);
  });
});

describe("retries", () => {
  it("repeats a read after a network failure and succeeds", async () => {
    const { fetch, counter } = flakyFetch(1, () => Promise.reject(new TypeError("fetch failed")));
    const client = createBillingClient({ baseUrl: server.url, token, fetch });
    const page = await client.customers.list();
    expect(page.total).toBeGreaterThanOrEqual(0);
    expect(counter.calls).toBe(2);
  });

  it("repeats a read after a 503 and succeeds", async () => {
    const { fetch, counter } = flakyFetch(2, async () => new Response("upstream down", { status: 503 }));
    const client = createBillingClient({ baseUrl: server.url, token, fetch });
    await expect(client.customers.list()).resolves.toMatchObject({ hasMore: expect.any(Boolean) });
    expect(counter.calls).toBe(3);
  });

  it("gives up after maxRetries with the last error", async () => {
    const { fetch, counter } = flakyFetch(10, async () => new Response("down", { status: 503 }));
    const client = createBillingClient({ baseUrl: server.url, token, fetch, maxRetries: 1 });
    await expect(client.customers.list()).rejects.toBeInstanceOf(ServerError);
    expect(counter.calls).toBe(2);
  });

  it("never repeats an operation that is not safe to repeat (admin calls carry no Idempotency-Key)", async () => {
    const { fetch, counter } = flakyFetch(1, () => Promise.reject(new TypeError("fetch failed")));
    const admin = createAdminClient({ baseUrl: server.url, token: ADMIN_TOKEN, fetch });
    await expect(admin.accounts.create("Once")).rejects.toBeInstanceOf(ConnectionError);
    expect(counter.calls).toBe(1);
  });

  it("times out a call that gets no answer", async () => {
    const hanging: typeof globalThis.fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const client = createBillingClient({ baseUrl: server.url, token, fetch: hanging, timeoutMs: 100, maxRetries: 0 });
    await expect(client.customers.list()).rejects.toBeInstanceOf(TimeoutError);
  });
});
