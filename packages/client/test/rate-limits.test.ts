import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { createBillingClient, RateLimitError } from "../src/index.js";

// Two calls per one-second window: a short window keeps the honoured Retry-After (1 s) short.
const LIMITS = { perWindow: 2, ingestPerWindow: 2, windowSeconds: 1 };

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: LIMITS });
});
afterAll(() => server.close());

/** A fetch passing every request to the server, recording each answer's status and Retry-After. */
function recordingFetch() {
  const answers: { status: number; retryAfter: string | null }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    answers.push({ status: response.status, retryAfter: response.headers.get("retry-after") });
    return response;
  };
  return { fetch, answers };
}

describe("the service's own 429", () => {
  it("is a RateLimitError carrying the server's Retry-After", async () => {
    const { token } = await server.newAccount();
    const client = createBillingClient({ baseUrl: server.url, token, maxRetries: 0 });
    // Five calls in a row cannot all fit in the windows they span (two calls each) unless they take over two
    // seconds. One after the other: concurrent ones could all pass on FerretDB, which loses concurrent increments.
    const refused: unknown[] = [];
    for (let i = 0; i < 5; i += 1) await client.customers.list().catch((error: unknown) => refused.push(error));
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) {
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ code: "TOO_MANY_REQUESTS", status: 429, retryAfterMs: 1000 });
    }
  });

  it("is waited out and retried: every call succeeds, reads and keyed grants alike", async () => {
    const { token } = await server.newAccount();
    const { fetch, answers } = recordingFetch();
    const client = createBillingClient({ baseUrl: server.url, token, fetch, maxRetries: 3 });
    const customer = await client.customers.create({ name: "Busy" });
    for (let i = 0; i < 4; i += 1) expect((await client.customers.get(customer.id)).id).toBe(customer.id);
    const grant = await client.credits.grant({ customerId: customer.id, amount: 1, type: "Grant" });
    expect(grant.balanceAfterEntry).toBe(1);

    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.every((answer) => answer.retryAfter === "1")).toBe(true);
    expect(answers.at(-1)?.status).toBe(200);
    expect((await client.credits.list({ customerId: customer.id })).entries).toHaveLength(1);
  });
});
