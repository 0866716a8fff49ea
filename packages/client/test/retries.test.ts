import { afterEach, describe, expect, it, vi } from "vitest";
import { ConflictError, createBillingClient, OutcomeUnknownError, RateLimitError } from "../src/index.js";
import {
  countingFetch,
  keyRecordingFetch,
  lostAnswerFetch,
  newClient,
  rejectionOf,
  storedMeasurements,
  useTestServer,
} from "./helpers.js";

const ctx = useTestServer();
afterEach(() => vi.restoreAllMocks());

/** A client of a new account through `fetch`, and a plain client of the same account to set up and check. */
async function clients(fetch: typeof globalThis.fetch) {
  const { client: plain, accountId, token } = await newClient(ctx.server);
  const customer = await plain.customers.create({ name: "Customer" });
  return {
    plain,
    accountId,
    customerId: customer.id,
    flaky: createBillingClient({ baseUrl: ctx.server.url, token, fetch }),
  };
}

describe("operations safe to repeat are retried, and their data is stored once", () => {
  it("measurements.create, when the answer of the first attempt is lost", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, accountId, customerId } = await clients(fetch);
    const measurement = await flaky.measurements.create({
      customerId,
      meterId: "cpu",
      usageDate: { year: 2024, month: 5, day: 1 },
      value: 7.25,
    });
    expect(counter.calls).toBe(2);
    expect(measurement).toMatchObject({ customerId, meterId: "cpu", value: 7.25 });
    expect(await storedMeasurements(ctx.server, accountId, customerId, "cpu", "2024-05-01")).toEqual({
      count: 1,
      micros: 7_250_000n,
    });
  });

  it("events.ingest, when the answer of the first attempt is lost", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain } = await clients(fetch);
    const events = ["e1", "e2", "e3"].map((ref, i) => ({
      name: "call",
      timestamp: `2024-01-01T00:0${i}:00.000Z`,
      customerAlias: "c",
      ref,
    }));
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
    expect(
      await flaky.events.ingest([{ name: "call", timestamp: "2024-01-01T00:00:00Z", customerAlias: "c", ref: "only" }]),
    ).toEqual({
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

describe("operations not safe to repeat by themselves are retried with one Idempotency-Key, and run once", () => {
  it("customers.create, when the answer of the first attempt is lost", async () => {
    const lost = lostAnswerFetch();
    const { fetch, keys } = keyRecordingFetch(lost.fetch);
    const { flaky, plain } = await clients(fetch);
    expect((await flaky.customers.create({ name: "Once" })).name).toBe("Once");
    expect(lost.counter.calls).toBe(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect((await plain.customers.list()).total).toBe(2);
  });

  it("each call has a key of its own", async () => {
    const { fetch, keys } = keyRecordingFetch(globalThis.fetch);
    const { flaky } = await clients(fetch);
    await flaky.customers.create({ name: "First" });
    await flaky.customers.create({ name: "Second" });
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it("customers.update", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain, customerId } = await clients(fetch);
    expect((await flaky.customers.update(customerId, { taxId: "T-9" })).taxId).toBe("T-9");
    expect(counter.calls).toBe(2);
    expect((await plain.customers.get(customerId)).taxId).toBe("T-9");
  });

  it("contracts.create", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain, customerId } = await clients(fetch);
    await flaky.contracts.create({ customerId, name: "Once", startDate: "2024-01-01T00:00:00Z" });
    expect(counter.calls).toBe(2);
    expect((await plain.contracts.list()).total).toBe(1);
  });

  it("contracts.delete: the retry gets the first answer, not a NotFoundError", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain, customerId } = await clients(fetch);
    const contract = await plain.contracts.create({ customerId, name: "Doomed", startDate: "2024-01-01T00:00:00Z" });
    expect((await flaky.contracts.delete(contract.id)).deletedAt).toEqual(expect.any(String));
    expect(counter.calls).toBe(2);
    expect((await plain.contracts.list()).total).toBe(0);
  });

  it("credits.grant", async () => {
    const { fetch, counter } = lostAnswerFetch();
    const { flaky, plain, customerId } = await clients(fetch);
    expect((await flaky.credits.grant({ customerId, amount: 5, type: "Grant" })).balanceAfterEntry).toBe(5);
    expect(counter.calls).toBe(2);
    expect((await plain.credits.list({ customerId })).entries.map((e) => e.balanceAfterEntry)).toEqual([5]);
  });

  it("a grant whose first attempt took effect and then failed (5xx) is not granted again: OutcomeUnknown", async () => {
    const { fetch, urls } = countingFetch();
    const { flaky, plain, customerId } = await clients(fetch);
    vi.spyOn(console, "error").mockImplementation(() => {});
    const credits = ctx.server.service.repositories.credits;
    const realGrant = credits.grant.bind(credits);
    vi.spyOn(credits, "grant").mockImplementationOnce(async (...args) => {
      await realGrant(...args);
      throw new Error("connection reset after the write");
    });
    const error = await rejectionOf(flaky.credits.grant({ customerId, amount: 5, type: "Grant" }));
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toBeInstanceOf(ConflictError);
    expect(urls).toHaveLength(2);
    expect((await plain.credits.list({ customerId })).entries.map((e) => e.balanceAfterEntry)).toEqual([5]);
  });

  it("a retry finding the first attempt still running waits, retries with the same key, and grants once", async () => {
    const credits = ctx.server.service.repositories.credits;
    const realGrant = credits.grant.bind(credits);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    vi.spyOn(credits, "grant").mockImplementationOnce(async (...args) => {
      await released;
      return realGrant(...args);
    });
    // Each attempt's answer: the first times out (the grant is held on the server), the next finds it running.
    const answers: string[] = [];
    const { fetch, keys } = keyRecordingFetch(async (input, init) => {
      const response = await globalThis.fetch(input, init);
      const status = response.headers.get("idempotency-status");
      answers.push(`${response.status}${status ? ` ${status}` : ""}`);
      if (status === "in-progress") release();
      return response;
    });
    const { token } = await ctx.server.newAccount();
    const plain = createBillingClient({ baseUrl: ctx.server.url, token });
    const customerId = (await plain.customers.create({ name: "Patient" })).id;
    const flaky = createBillingClient({ baseUrl: ctx.server.url, token, fetch, timeoutMs: 500, maxRetries: 4 });
    expect((await flaky.credits.grant({ customerId, amount: 3, type: "Grant" })).balanceAfterEntry).toBe(3);
    expect(answers).toContain("409 in-progress");
    expect(answers.at(-1)).toBe("200"); // tRPC answers a success with 200
    expect(new Set(keys).size).toBe(1);
    expect((await plain.credits.list({ customerId })).entries.map((e) => e.balanceAfterEntry)).toEqual([3]);
  });

  it("a refusal that is not transient is not retried", async () => {
    const { fetch, urls } = countingFetch();
    const { flaky } = await clients(fetch);
    await expect(flaky.customers.create({ name: "Customer" })).rejects.toBeInstanceOf(ConflictError);
    expect(urls).toHaveLength(1);
  });
});

/** The tRPC answer of a rate-limited batch of one call, as a gateway or the service would send it. */
const rateLimitedJson = () =>
  new Response(
    JSON.stringify([
      { error: { message: "Slow down", code: -32029, data: { code: "TOO_MANY_REQUESTS", httpStatus: 429 } } },
    ]),
    {
      status: 429,
      headers: { "content-type": "application/json", "retry-after": "1" },
    },
  );
const rateLimitedPlain = () =>
  new Response("Too Many Requests", { status: 429, headers: { "content-type": "text/plain", "retry-after": "1" } });

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

  it("retries a grant with its key, and grants once", async () => {
    const { fetch, times } = rateLimitedOnce(answer);
    const { flaky, plain, customerId } = await clients(fetch);
    await flaky.credits.grant({ customerId, amount: 1, type: "Grant" });
    expect(times).toHaveLength(2);
    expect((await plain.credits.list({ customerId })).entries.map((e) => e.amount)).toEqual([1]);
  });
});
