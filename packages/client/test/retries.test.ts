import { afterEach, describe, expect, it, vi } from "vitest";
import { ConnectionError, RateLimitError, ServerError, createBillingClient } from "../src/index.js";
import { countingFetch, lostAnswerFetch, newClient, rejectionOf, storedMeasurements, useTestServer } from "./helpers.js";

const ctx = useTestServer();
afterEach(() => vi.restoreAllMocks());

/** A client of a new account through `fetch`, and a plain client of the same account to set up and check. */
async function clients(fetch: typeof globalThis.fetch) {
  const { client: plain, accountId, token } = await newClient(ctx.server);
  const customer = await plain.customers.create({ name: "Customer" });
  return { plain, accountId, customerId: customer.id, flaky: createBillingClient({ baseUrl: ctx.server.url, token, fetch }) };
}

describe("operations safe to repeat are retried, and their data is stored once", () => {
  it("measurements.create, when the answer of the first attempt is lost", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, accountId, customerId } = await clients(fetch);
    const measurement = await flaky.measurements.create({ customerId, meterId: "cpu", usageDate: { year: 2024, month: 5, day: 1 }, value: 7.25 });
    expect(counter.calls).toBe(2);
    expect(measurement).toMatchObject({ customerId, meterId: "cpu", value: 7.25 });
    expect(await storedMeasurements(ctx.server, accountId, customerId, "cpu", "2024-05-01")).toEqual({ count: 1, micros: 7_250_000n });
  });

  it("events.ingest, when the answer of the first attempt is lost", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain } = await clients(fetch);
    const events = ["e1", "e2", "e3"].map((ref, i) => ({ name: "call", timestamp: `2024-01-01T00:0${i}:00.000Z`, customerAlias: "c", ref }));
    const result = await flaky.events.ingest(events);
    expect(counter.calls).toBe(2);
    expect(result.stored + result.duplicates.length).toBe(3);
    const stored = await plain.events.query({ startTime: "2024-01-01T00:00:00Z", endTime: "2024-01-02T00:00:00Z" });
    expect(stored.events.map((e) => e.ref)).toEqual(["e1", "e2", "e3"]);
  });

  it("events.ingest, when the first attempt never reaches the server", async () => {
    let calls = 0;
    const fetch: typeof globalThis.fetch = (input, init) =>
      ++calls === 1 ? Promise.reject(new TypeError("fetch failed")) : globalThis.fetch(input, init);
    const { flaky } = await clients(fetch);
    expect(await flaky.events.ingest([{ name: "call", timestamp: "2024-01-01T00:00:00Z", customerAlias: "c", ref: "only" }])).toEqual({
      stored: 1,
      duplicates: [],
    });
    expect(calls).toBe(2);
  });

  it("a read after a real server fault", async () => {
    const { fetch, urls } = countingFetch();
    const { flaky, customerId } = await clients(fetch);
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(ctx.server.service.repositories.customers, "get").mockRejectedValueOnce(new Error("transient"));
    expect((await flaky.customers.get(customerId)).id).toBe(customerId);
    expect(urls).toHaveLength(2);
  });
});

describe("operations not safe to repeat are sent once", () => {
  it("customers.create", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain } = await clients(fetch);
    await expect(flaky.customers.create({ name: "Once" })).rejects.toBeInstanceOf(ConnectionError);
    expect(counter.calls).toBe(1);
    expect((await plain.customers.getByName("Once")).name).toBe("Once");
    expect((await plain.customers.list()).total).toBe(2);
  });

  it("contracts.create", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain, customerId } = await clients(fetch);
    await expect(flaky.contracts.create({ customerId, name: "Once", startDate: "2024-01-01T00:00:00Z" })).rejects.toBeInstanceOf(ConnectionError);
    expect(counter.calls).toBe(1);
    expect((await plain.contracts.list()).total).toBe(1);
  });

  it("contracts.delete", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain, customerId } = await clients(fetch);
    const contract = await plain.contracts.create({ customerId, name: "Doomed", startDate: "2024-01-01T00:00:00Z" });
    // A repeat would answer NotFoundError: the caller gets the network failure instead.
    await expect(flaky.contracts.delete(contract.id)).rejects.toBeInstanceOf(ConnectionError);
    expect(counter.calls).toBe(1);
    expect((await plain.contracts.list()).total).toBe(0);
  });

  it("credits.grant", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain, customerId } = await clients(fetch);
    await expect(flaky.credits.grant({ customerId, amount: 5, type: "Grant" })).rejects.toBeInstanceOf(ConnectionError);
    expect(counter.calls).toBe(1);
    expect((await plain.credits.list({ customerId })).entries.map((e) => e.balanceAfterEntry)).toEqual([5]);
  });

  it("a create that met a real server fault", async () => {
    const { fetch, urls } = countingFetch();
    const { flaky } = await clients(fetch);
    vi.spyOn(console, "error").mockImplementation(() => {});
    vi.spyOn(ctx.server.service.repositories.customers, "create").mockRejectedValueOnce(new Error("transient"));
    await expect(flaky.customers.create({ name: "Unlucky" })).rejects.toBeInstanceOf(ServerError);
    expect(urls).toHaveLength(1);
  });
});

/** The tRPC answer of a rate-limited batch of one call, as a gateway or the service would send it. */
const rateLimitedJson = () =>
  new Response(JSON.stringify([{ error: { message: "Slow down", code: -32029, data: { code: "TOO_MANY_REQUESTS", httpStatus: 429 } } }]), {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": "1" },
  });
const rateLimitedPlain = () => new Response("Too Many Requests", { status: 429, headers: { "content-type": "text/plain", "retry-after": "1" } });

/** Answers 429 to the first request, then passes through; records when each request was made. */
function rateLimitedOnce(answer: () => Response) {
  const times: number[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    times.push(performance.now());
    return times.length === 1 ? answer() : globalThis.fetch(input, init);
  };
  return { fetch, times };
}

describe.each([
  { body: "a JSON tRPC error", answer: rateLimitedJson, message: "Slow down" },
  { body: "a plain", answer: rateLimitedPlain, message: "The service answered 429" },
])("429 with $body body and Retry-After: 1", ({ answer, message }) => {
  it("is a RateLimitError carrying the delay", async () => {
    const { fetch } = rateLimitedOnce(answer);
    const { token } = await ctx.server.newAccount();
    const client = createBillingClient({ baseUrl: ctx.server.url, token, fetch, maxRetries: 0 });
    const error = await rejectionOf(client.customers.list());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: "TOO_MANY_REQUESTS", status: 429, message, retryAfterMs: 1000 });
  });

  it("retries a read after that delay, then succeeds", async () => {
    const { fetch, times } = rateLimitedOnce(answer);
    const { flaky, customerId } = await clients(fetch);
    expect((await flaky.customers.get(customerId)).id).toBe(customerId);
    expect(times).toHaveLength(2);
    // The default backoff of a first retry is at most 500 ms: waiting longer means Retry-After was honoured.
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
  });

  it("does not retry a grant", async () => {
    const { fetch, times } = rateLimitedOnce(answer);
    const { flaky, plain, customerId } = await clients(fetch);
    await expect(flaky.credits.grant({ customerId, amount: 1, type: "Grant" })).rejects.toBeInstanceOf(RateLimitError);
    expect(times).toHaveLength(1);
    expect((await plain.credits.list({ customerId })).entries).toEqual([]);
  });
});
