import { describe, expect, it, vi } from "vitest";
import { purgeExpiredRecords } from "../src/services/expiry-purge.js";
import { expectError } from "./support/assertions.js";
import { useTestServer } from "./support/harness.js";
import { parseMetrics, sampleValue } from "./support/metrics.js";
import { ADMIN_TOKEN, startTestServer, startTwinService, trpcErrorCode, withBareService } from "./support/server.js";

// A window of an hour: no window boundary falls between the calls of a test, so counts are predictable.
const LIMITS = { perWindow: 3, ingestPerWindow: 5, windowSeconds: 3600 };

const server = useTestServer({ rateLimits: LIMITS });

const headersOf = (response: { headers: Headers }) => ({
  limit: response.headers.get("ratelimit-limit"),
  remaining: response.headers.get("ratelimit-remaining"),
  reset: Number(response.headers.get("ratelimit-reset")),
  retryAfter: response.headers.get("retry-after"),
});

const event = (ref: string) => ({
  events: [{ name: "call", timestamp: "2024-01-01T00:00:00Z", customerAlias: "c", ref }],
});

describe("rate limits per token", () => {
  it("successful answers carry RateLimit headers; past the limit, 429 with Retry-After", async () => {
    const { token } = await server.newAccount();
    for (const remaining of ["2", "1", "0"]) {
      const response = await server.rest("GET", "/customers", { token });
      expect(response.status).toBe(200);
      const headers = headersOf(response);
      expect(headers).toMatchObject({ limit: "3", remaining, retryAfter: null });
      expect(headers.reset).toBeGreaterThanOrEqual(1);
      expect(headers.reset).toBeLessThanOrEqual(3600);
    }
    const refused = await server.rest("GET", "/customers", { token });
    expectError(refused, 429, "TOO_MANY_REQUESTS");
    expect(refused.body.message).toMatch(/retry in \d+ s/);
    const headers = headersOf(refused);
    expect(headers).toMatchObject({ limit: "3", remaining: "0" });
    expect(Number(headers.retryAfter)).toBe(headers.reset);
    expect(headers.reset).toBeGreaterThanOrEqual(1);
  });

  it("REST and tRPC calls share one count, and tRPC answers carry the same headers", async () => {
    const { token } = await server.newAccount();
    await server.rest("GET", "/customers", { token });
    await server.trpc(token).customers.list.query({});
    const viaFetch = await fetch(`${server.url}/trpc/customers.list?input=${encodeURIComponent("{}")}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(viaFetch.status).toBe(200);
    expect(headersOf(viaFetch)).toMatchObject({ limit: "3", remaining: "0" });
    expect(await trpcErrorCode(server.trpc(token).customers.list.query({}))).toBe("TOO_MANY_REQUESTS");
    const refused = await fetch(`${server.url}/trpc/customers.list?input=${encodeURIComponent("{}")}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("ingestion (POST /events, POST /measurements) has its own, separate limit", async () => {
    const { token } = await server.newAccount();
    for (let i = 0; i < 3; i += 1) await server.rest("GET", "/customers", { token });
    expectError(await server.rest("GET", "/customers", { token }), 429, "TOO_MANY_REQUESTS");

    const customerId = (await server.trpc((await server.newAccount()).token).customers.create.mutate({ name: "x" }))
      .customer.id;
    for (let i = 0; i < 4; i += 1) {
      const response = await server.rest("POST", "/events", { token, body: event(`e${i}`) });
      expect(response.status).toBe(200);
      expect(headersOf(response)).toMatchObject({ limit: "5", remaining: String(4 - i) });
    }
    // Another account's customer: 404, but counted all the same.
    const measurement = { customerId, meterId: "m", usageDate: { year: 2024, month: 1, day: 1 }, value: 1 };
    expectError(await server.rest("POST", "/measurements", { token, body: measurement }), 404, "NOT_FOUND");
    expectError(await server.rest("POST", "/events", { token, body: event("late") }), 429, "TOO_MANY_REQUESTS");
  });

  it("each token has its own count, even within one account", async () => {
    const { token, accountId } = await server.newAccount();
    const second = (await server.rest("POST", `/admin/accounts/${accountId}/tokens`, { token: ADMIN_TOKEN })).body
      .token;
    for (let i = 0; i < 4; i += 1) await server.rest("GET", "/customers", { token });
    expect((await server.rest("GET", "/customers", { token })).status).toBe(429);
    const other = await server.rest("GET", "/customers", { token: second });
    expect(other.status).toBe(200);
    expect(headersOf(other).remaining).toBe("2");
  });

  it("calls without a valid token are not counted and carry no RateLimit headers", async () => {
    const response = await server.rest("GET", "/customers", { token: "bill_unknown" });
    expect(response.status).toBe(401);
    expect(headersOf(response).limit).toBeNull();
  });

  it("the count lives in the database: a second instance of the service sees the same count", async () => {
    const { token } = await server.newAccount();
    const twin = await startTwinService(server, { rateLimits: LIMITS });
    try {
      await server.rest("GET", "/customers", { token });
      await server.rest("GET", "/customers", { token });
      const onTwin = await fetch(`${twin.url}/customers`, { headers: { authorization: `Bearer ${token}` } });
      expect(headersOf(onTwin).remaining).toBe("0");
      expect((await fetch(`${twin.url}/customers`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
        429,
      );
      expect((await server.rest("GET", "/customers", { token })).status).toBe(429);
    } finally {
      await twin.close();
    }
  });

  it("a concurrent burst is admitted exactly up to the limit, on FerretDB too", async () => {
    const burst = await startTestServer({ rateLimits: { perWindow: 10, ingestPerWindow: 10, windowSeconds: 3600 } });
    try {
      for (let round = 0; round < 3; round += 1) {
        const { token } = await burst.newAccount();
        const answers = await Promise.all(Array.from({ length: 20 }, () => burst.rest("GET", "/customers", { token })));
        const passed = answers.filter((answer) => answer.status === 200);
        // FerretDB 1.24 loses concurrent increments: counting with `$inc` alone let 18 to 20 of these 20 through.
        expect(passed).toHaveLength(10);
        expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
        // Each admitted call holds its own slot, so the remaining counts are 9, 8, …, 0, each once.
        expect(passed.map((answer) => Number(headersOf(answer).remaining)).sort((a, b) => a - b)).toEqual([
          0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
        ]);
      }
    } finally {
      await burst.close();
    }
  });

  it("an instance that has not seen the window (a restart, another instance) takes the next free slot", async () => {
    const limits = { perWindow: 10, ingestPerWindow: 10, windowSeconds: 3600 };
    const first = await startTestServer({ rateLimits: limits });
    try {
      const { token } = await first.newAccount();
      for (let call = 0; call < 7; call += 1)
        expect((await first.rest("GET", "/customers", { token })).status).toBe(200);
      const twin = await startTwinService(first, { rateLimits: limits });
      try {
        const get = () => fetch(`${twin.url}/customers`, { headers: { authorization: `Bearer ${token}` } });
        // 7 of 10 taken: the twin finds slot 8 (its own first try, slot 1, is taken), then 9 and 10.
        for (const remaining of ["2", "1", "0"]) expect(headersOf(await get()).remaining).toBe(remaining);
        expect((await get()).status).toBe(429);
        expect((await first.rest("GET", "/customers", { token })).status).toBe(429);
      } finally {
        await twin.close();
      }
    } finally {
      await first.close();
    }
  });

  it("a burst spread over two instances is admitted exactly up to the limit", async () => {
    const limits = { perWindow: 10, ingestPerWindow: 10, windowSeconds: 3600 };
    const first = await startTestServer({ rateLimits: limits });
    const twin = await startTwinService(first, { rateLimits: limits });
    try {
      for (let round = 0; round < 3; round += 1) {
        const { token } = await first.newAccount();
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, call) =>
            fetch(`${[first.url, twin.url][call % 2]}/customers`, { headers: { authorization: `Bearer ${token}` } }),
          ),
        );
        const passed = answers.filter((answer) => answer.status === 200);
        expect(answers.every((answer) => answer.status === 200 || answer.status === 429)).toBe(true);
        expect(passed.map((answer) => Number(headersOf(answer).remaining)).sort((a, b) => a - b)).toEqual([
          0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
        ]);
      }
    } finally {
      await twin.close();
      await first.close();
    }
  });

  /** A spent window of a token long gone: the slot its last call took, and an earlier version's counter; expired. */
  async function insertSpentWindow(name: string) {
    const windows = server.service.db.collection<{ _id: string; count: number; expiresAt: Date }>("rateLimitWindows");
    const slots = server.service.db.collection<{ _id: string; expiresAt: Date }>("rateLimitSlots");
    const window = `${name}/api/2020-01-01T00:00:00.000Z`;
    await windows.insertOne({ _id: window, count: 9, expiresAt: new Date("2020-01-01T02:00:00Z") });
    await slots.insertOne({ _id: `${window}/9`, expiresAt: new Date("2020-01-01T02:00:00Z") });
    return {
      left: async () =>
        (await windows.countDocuments({ _id: window })) + (await slots.countDocuments({ _id: `${window}/9` })),
      live: async () => ({ windows: await windows.countDocuments({}), slots: await slots.countDocuments({}) }),
    };
  }

  it("no call deletes spent windows; a purge deletes them and keeps the live ones", async () => {
    const spent = await insertSpentWindow("gone-token");
    // New tokens: each call below is the first of its window, when the limiter used to purge inline.
    for (let account = 0; account < 3; account += 1) {
      const { token } = await server.newAccount();
      expect((await server.rest("GET", "/customers", { token })).status).toBe(200);
    }
    expect(await spent.left()).toBe(2);
    const before = await spent.live();
    // The purge job's tick (on MongoDB, the TTL indexes do this instead).
    expect(await purgeExpiredRecords(server.service.repositories, new Date())).toBeGreaterThanOrEqual(2);
    expect(await spent.left()).toBe(0);
    // The calls' own windows and slots (an hour long) are not expired: all of them stay.
    expect(await spent.live()).toEqual({ windows: before.windows - 1, slots: before.slots - 1 });
  });

  it("a service started with the purge job deletes spent windows in the background, with no call", async () => {
    const spent = await insertSpentWindow("gone-token-2");
    const twin = await startTwinService(server, { expiryPurge: { intervalMs: 100 } });
    try {
      // Both awaited: a purge's duration is recorded once it has returned, after its deletes are seen.
      await vi.waitFor(
        async () => {
          expect(await spent.left()).toBe(0);
          const samples = parseMetrics(await (await fetch(`${twin.url}/metrics`)).text());
          const purges = { task: "expiry_purge" };
          expect(sampleValue(samples, "billing_task_duration_seconds_count", purges)).toBeGreaterThanOrEqual(1);
        },
        { timeout: 10_000, interval: 100 },
      );
    } finally {
      await twin.close();
    }
  });
});

describe("a service without rate limits", () => {
  it("counts nothing and sends no RateLimit headers", async () => {
    await withBareService(async (bare) => {
      const account = await bare.repositories.accounts.create("unlimited");
      const { token } = await bare.repositories.tokens.create(account.id);
      const response = await fetch(`${bare.url}/customers`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit-limit")).toBeNull();
      expect(await bare.db.collection("rateLimitSlots").countDocuments({})).toBe(0);
    });
  });
});
