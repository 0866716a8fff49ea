import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type BillingClientOptions,
  ConflictError,
  ConnectionError,
  createBillingClient,
  RequestAbortedError,
  type RequestOptions,
  ServerError,
  TimeoutError,
} from "../src/index.js";
import {
  countingFetch,
  type GatewayAnswer,
  keyRecordingFetch,
  lostAnswerFetch,
  newClient,
  rejectionOf,
  startGateway,
  useTestServer,
} from "./helpers.js";

const ctx = useTestServer();
const gateways: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
});

/** A client of a new account that reaches the server through a gateway handling each request as `plan` says. */
async function behindGateway(plan: (request: number) => GatewayAnswer, options: Partial<BillingClientOptions> = {}) {
  const { token } = await ctx.server.newAccount();
  const gateway = await startGateway(ctx.server.url, plan);
  gateways.push(gateway);
  return { gateway, token, client: createBillingClient({ baseUrl: gateway.url, token, ...options }) };
}

/** How long a call took to settle, and what it rejected with. */
async function timed(call: Promise<unknown>) {
  const started = performance.now();
  const error = await rejectionOf(call);
  return { error, ms: performance.now() - started };
}

const unavailable: GatewayAnswer = { status: 503, body: "upstream down" };

describe("timeoutMs of a call overrides the client's", () => {
  it("a shorter one gives up on a hanging endpoint long before the client's 30 s", async () => {
    const { client, gateway } = await behindGateway(() => "hang");
    const { error, ms } = await timed(client.customers.list(undefined, { timeoutMs: 150, maxRetries: 0 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(ms).toBeLessThan(2_000);
    expect(gateway.requests).toBe(1);
  });

  it("a longer one waits for an answer the client's own would have given up on", async () => {
    const { client } = await behindGateway(() => ({ holdAnswerMs: 600 }), { timeoutMs: 150, maxRetries: 0 });
    expect(await rejectionOf(client.customers.list())).toBeInstanceOf(TimeoutError);
    await expect(client.customers.list(undefined, { timeoutMs: 5_000 })).resolves.toMatchObject({ total: 0 });
  });

  it("holds for each attempt: a timed-out read is retried as often as the client allows", async () => {
    const { client, gateway } = await behindGateway(() => "hang");
    expect(await rejectionOf(client.customers.list(undefined, { timeoutMs: 100 }))).toBeInstanceOf(TimeoutError);
    expect(gateway.requests).toBe(3); // the first attempt and the default 2 retries
  }, 10_000);
});

describe("maxRetries of a call overrides the client's", () => {
  it("0 sends a retriable failure's call once, where the default sends it three times", async () => {
    const { client, gateway } = await behindGateway(() => unavailable);
    expect(await rejectionOf(client.customers.list())).toBeInstanceOf(ServerError);
    expect(gateway.requests).toBe(3);
    expect(await rejectionOf(client.customers.list(undefined, { maxRetries: 0 }))).toBeInstanceOf(ServerError);
    expect(gateway.requests).toBe(4);
  }, 10_000);

  it("1 retries a call of a client that never retries, and the retry succeeds", async () => {
    const { client, gateway } = await behindGateway((n) => (n === 1 ? unavailable : { holdAnswerMs: 0 }), {
      maxRetries: 0,
    });
    await expect(client.customers.list(undefined, { maxRetries: 1 })).resolves.toMatchObject({ total: 0 });
    expect(gateway.requests).toBe(2);
  });
});

describe("signal aborts a call", () => {
  it("already aborted: nothing is sent", async () => {
    const { fetch, urls } = countingFetch();
    const { client } = await newClient(ctx.server, { fetch });
    const reason = new Error("user left");
    const controller = new AbortController();
    controller.abort(reason);
    const error = await rejectionOf(client.customers.create({ name: "Never sent" }, { signal: controller.signal }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toMatchObject({ code: "ABORTED", status: undefined, requestId: undefined, cause: reason });
    expect(await rejectionOf(client.customers.list(undefined, { signal: controller.signal }))).toBeInstanceOf(
      RequestAbortedError,
    );
    expect(urls).toHaveLength(0);
  });

  it("while it waits for an answer: rejects at once, as an abort and not a timeout, and is not retried", async () => {
    const { client, gateway } = await behindGateway(() => "hang");
    const { error, ms } = await timed(client.customers.list(undefined, { signal: AbortSignal.timeout(100) }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(ms).toBeLessThan(2_000);
    expect(gateway.requests).toBe(1);
  });

  it("while it waits to be retried: the wait (here a 429's Retry-After of 5 s) ends at once", async () => {
    const rateLimited = { status: 429, headers: { "retry-after": "5" }, body: "Too Many Requests" };
    const { client, gateway } = await behindGateway(() => rateLimited);
    const { error, ms } = await timed(client.customers.list(undefined, { signal: AbortSignal.timeout(300) }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(ms).toBeLessThan(2_000);
    expect(gateway.requests).toBe(1);
  });

  it("of every page of a paginator: iteration stops at the first page after the abort", async () => {
    const { client } = await newClient(ctx.server);
    for (const name of ["A", "B", "C"]) await client.customers.create({ name });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const customer of client.customers.listAll({ limit: 1 }, { signal: controller.signal })) {
          seen.push(customer.name);
          controller.abort();
        }
      })(),
    );
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(seen).toEqual(["A"]);
  });
});

describe("idempotencyKey of a call", () => {
  it("is sent instead of a generated one: the same key twice grants once, and answers the first grant", async () => {
    const { fetch, keys } = keyRecordingFetch();
    const { client } = await newClient(ctx.server, { fetch });
    const { id: customerId } = await client.customers.create({ name: "Keyed" });
    const idempotencyKey = "grant-order-4711";
    const first = await client.credits.grant({ customerId, amount: 25, type: "Grant" }, { idempotencyKey });
    const second = await client.credits.grant({ customerId, amount: 25, type: "Grant" }, { idempotencyKey });
    expect(second).toEqual(first);
    expect(keys.slice(1)).toEqual([idempotencyKey, idempotencyKey]);
    const { entries } = await client.credits.list({ customerId });
    expect(entries.map((entry) => [entry.amount, entry.balanceAfterEntry])).toEqual([[25, 25]]);
  });

  it("is kept across the SDK's retries, and lets the caller retry later: one grant all the same", async () => {
    const lost = lostAnswerFetch();
    const { fetch, keys } = keyRecordingFetch(lost.fetch);
    const { client: plain, token } = await newClient(ctx.server);
    const { id: customerId } = await plain.customers.create({ name: "Unlucky network" });
    const flaky = createBillingClient({ baseUrl: ctx.server.url, token, fetch });
    const grant = { customerId, amount: 10, type: "Grant" } as const;
    // The answer is lost and the call not retried: it may or may not have been granted...
    const idempotencyKey = "grant-after-outage";
    expect(await rejectionOf(flaky.credits.grant(grant, { idempotencyKey, maxRetries: 0 }))).toBeInstanceOf(
      ConnectionError,
    );
    // ...so the caller sends it again under its key, and gets the grant that happened.
    const entry = await flaky.credits.grant(grant, { idempotencyKey });
    expect(keys).toEqual([idempotencyKey, idempotencyKey]);
    expect((await plain.credits.list({ customerId })).entries).toEqual([entry]);
  });

  it("of a different request in the same account is a ConflictError, and nothing is created", async () => {
    const { client } = await newClient(ctx.server);
    await client.customers.create({ name: "First" }, { idempotencyKey: "onboarding-1" });
    const error = await rejectionOf(client.customers.create({ name: "Second" }, { idempotencyKey: "onboarding-1" }));
    expect(error).toBeInstanceOf(ConflictError);
    expect((await client.customers.list()).customers.map((customer) => customer.name)).toEqual(["First"]);
  });

  it("is not sent by a method that is safe to repeat without one (a type error; ignored at run time)", async () => {
    const { fetch, keys } = keyRecordingFetch();
    const { client } = await newClient(ctx.server, { fetch });
    await client.customers.list(undefined, { idempotencyKey: "ignored" } as RequestOptions);
    expect(keys).toEqual([null]);
  });
});

describe("requestId of an error", () => {
  /** A fetch recording the X-Request-Id of each answer. */
  function requestIdRecordingFetch() {
    const ids: (string | null)[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      ids.push(response.headers.get("x-request-id"));
      return response;
    };
    return { fetch, ids };
  }

  it("is the X-Request-Id of the server's answer, for a batched read and for a keyed call", async () => {
    const { fetch, ids } = requestIdRecordingFetch();
    const { client } = await newClient(ctx.server, { fetch });
    const missing = await rejectionOf(client.customers.get("nobody"));
    await client.customers.create({ name: "Taken" });
    const taken = await rejectionOf(client.customers.create({ name: "Taken" }));
    expect(ids).toHaveLength(3);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(missing).toMatchObject({ status: 404, requestId: ids[0] });
    expect(taken).toBeInstanceOf(ConflictError);
    expect(taken).toMatchObject({ status: 409, requestId: ids[2] });
    expect(new Set(ids).size).toBe(3);
  });

  it("is a gateway's X-Request-Id on its own error page", async () => {
    const page = { status: 502, headers: { "x-request-id": "edge-7f3a" }, body: "<h1>Bad Gateway</h1>" };
    const { client } = await behindGateway(() => page, { maxRetries: 0 });
    expect(await rejectionOf(client.customers.list())).toMatchObject({ status: 502, requestId: "edge-7f3a" });
  });

  it("is undefined when no answer came", async () => {
    const unreachable = createBillingClient({ baseUrl: "http://127.0.0.1:9", token: "bill_x", maxRetries: 0 });
    const refused = await rejectionOf(unreachable.customers.list());
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(refused).toMatchObject({ requestId: undefined });
    const { client } = await behindGateway(() => "hang", { timeoutMs: 100, maxRetries: 0 });
    expect(await rejectionOf(client.customers.list())).toMatchObject({ code: "TIMEOUT", requestId: undefined });
  });
});
