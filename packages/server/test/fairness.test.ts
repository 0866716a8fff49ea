import { request as httpRequest } from "node:http";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { describe, expect, it } from "vitest";
import type { AppRouter } from "../src/routers/index.js";
import { expectError } from "./support/assertions.js";
import { type BillingAccount, billingAccount, monthly } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { parseMetrics, sampleValue } from "./support/metrics.js";
import { ADMIN_TOKEN, type TestServer, trpcErrorCode } from "./support/server.js";

/** A batch of `count` `customers.list` calls, sent as tRPC's own link sends a GET batch. */
const listBatch = (server: TestServer, token: string, count: number) => {
  const paths = Array.from({ length: count }, () => "customers.list").join(",");
  const input = Object.fromEntries(Array.from({ length: count }, (_, index) => [index, {}]));
  return fetch(`${server.url}/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`, {
    headers: { authorization: `Bearer ${token}` },
  });
};

/** The instance's metric `name` with `labels`, as `GET /metrics` shows it now. */
const metricOf = async (server: TestServer, name: string, labels: Record<string, string>) =>
  sampleValue(parseMetrics(await (await fetch(`${server.url}/metrics`)).text()), name, labels);
const REFUSED = "billing_calls_refused_total";

/**
 * A call that runs until released: a keyed creation paused before its answer is stored. `reached` resolves once it
 * has started (it had its slots) and reached the pause.
 */
const startSlowCreation = (
  server: TestServer,
  control: ReturnType<typeof testHooks>,
  accountId: string,
  token: string,
  key: string,
) => {
  const pause = control.pauseOnce("idempotency.complete", `${accountId}/${key}`);
  const answer = server.rest("POST", "/customers", { token, body: { name: key }, headers: { "idempotency-key": key } });
  return { answer, reached: pause.reached.then(() => key), release: pause.release };
};

describe("tRPC batches are bounded (MAX_BATCH_CALLS, 50)", () => {
  const server = useTestServer();

  it("a batch of 51 calls is refused whole with 413, each call naming the limit; 50 are served", async () => {
    const { token } = await server.newAccount();
    const refused = await listBatch(server, token, 51);
    expect(refused.status).toBe(413);
    // Refused before any call ran or counted against the rate limit.
    expect(refused.headers.get("ratelimit-limit")).toBeNull();
    const answers = (await refused.json()) as any[];
    expect(answers).toHaveLength(51);
    for (const answer of answers) {
      expect(answer.error.data).toMatchObject({ code: "PAYLOAD_TOO_LARGE", httpStatus: 413 });
      expect(answer.error.message).toBe("A tRPC batch may hold at most 50 calls; this one has 51: split it");
    }

    const served = await listBatch(server, token, 50);
    expect(served.status).toBe(200);
    const results = (await served.json()) as any[];
    expect(results).toHaveLength(50);
    expect(results.every((result) => Array.isArray(result.result.data.customers))).toBe(true);
  });

  it("refuses an oversized batch from its request line: a body that never ends is not waited for", async () => {
    const { token } = await server.newAccount();
    const paths = Array.from({ length: 200 }, () => "customers.create").join(",");
    const { status, answers } = await new Promise<{ status: number; answers: any[] }>((resolve, reject) => {
      const request = httpRequest(`${server.url}/trpc/${paths}?batch=1`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": "1000000" },
      });
      request.on("error", reject);
      request.on("response", async (response) => {
        let text = "";
        for await (const chunk of response) text += chunk;
        resolve({ status: response.statusCode ?? 0, answers: JSON.parse(text) });
        request.destroy();
      });
      // A tenth of the announced body, then nothing more: only an answer from the request line can come.
      request.write(`{"0":{"name":"${"x".repeat(100_000)}`);
    });
    expect(status).toBe(413);
    expect(answers).toHaveLength(200);
    expect(answers[0].error.data).toMatchObject({ code: "PAYLOAD_TOO_LARGE", httpStatus: 413 });
    expect(answers[199].error.message).toBe("A tRPC batch may hold at most 50 calls; this one has 200: split it");
    expect(await server.rest("GET", "/customers", { token })).toMatchObject({ status: 200, body: { total: 0 } });
  });

  it("the tRPC client's calls of an oversized batch each fail with PAYLOAD_TOO_LARGE", async () => {
    const { token } = await server.newAccount();
    const client = createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({ url: `${server.url}/trpc`, maxItems: 100, headers: { authorization: `Bearer ${token}` } }),
      ],
    });
    const codes = await Promise.all(Array.from({ length: 51 }, () => trpcErrorCode(client.customers.list.query({}))));
    expect(new Set(codes)).toEqual(new Set(["PAYLOAD_TOO_LARGE"]));
    expect(await server.rest("GET", "/customers", { token })).toMatchObject({ status: 200 });
  });
});

describe("calls in flight per token and per account", () => {
  const control = testHooks();
  // Two per token, three per account, one waiting per token and per account; a wait long enough never to end in a test.
  const server = useTestServer({
    hooks: control.hooks,
    callLimits: { perToken: 2, perAccount: 3, perInstance: 100, queued: 1, queueMs: 60_000 },
  });

  const slowCreation = async (accountId: string, token: string, key: string) => {
    const call = startSlowCreation(server, control, accountId, token, key);
    await call.reached;
    return call;
  };

  const secondToken = async (accountId: string) =>
    (await server.rest("POST", `/admin/accounts/${accountId}/tokens`, { token: ADMIN_TOKEN })).body.token as string;

  it("past its slots a call waits; past the queue, 429 with Retry-After; another account is served", async () => {
    const { accountId, token } = await server.newAccount();
    const other = await server.newAccount();
    const slow = [await slowCreation(accountId, token, "slow-1"), await slowCreation(accountId, token, "slow-2")];
    const refusedBefore = await metricOf(server, REFUSED, { reason: "slots" });

    const queued = control.pauseOnce("calls.queued", "token");
    const waiting = server.rest("GET", "/customers", { token });
    await queued.reached;
    queued.release();
    expect(await metricOf(server, "billing_calls_waiting", { kind: "token" })).toBe(1);

    const refused = await server.rest("GET", "/customers", { token });
    expectError(refused, 429, "TOO_MANY_REQUESTS");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body.message).toMatch(/retry in 1 s/);
    expect(await trpcErrorCode(server.trpc(token).customers.list.query({}))).toBe("TOO_MANY_REQUESTS");
    // A batch is answered call by call, as tRPC answers it.
    const refusedBatch = await listBatch(server, token, 3);
    expect(refusedBatch.status).toBe(429);
    expect(refusedBatch.headers.get("retry-after")).toBe("1");
    const answers = (await refusedBatch.json()) as any[];
    expect(answers.map((answer) => answer.error.data)).toEqual(
      Array.from({ length: 3 }, () => ({ code: "TOO_MANY_REQUESTS", httpStatus: 429 })),
    );
    expect(answers[0].error.message).toBe(refused.body.message);
    // Each call refused is counted: one over REST, one over tRPC, the batch's three.
    expect((await metricOf(server, REFUSED, { reason: "slots" })) - refusedBefore).toBe(5);

    const served = await server.rest("GET", "/customers", { token: other.token });
    expect(served.status).toBe(200);
    expect((await server.trpc(other.token).customers.list.query({})).customers).toEqual([]);

    // A slot frees: the waiting call runs.
    slow[0]!.release();
    expect((await slow[0]!.answer).status).toBe(201);
    const afterWait = await waiting;
    expect(afterWait.status).toBe(200);
    expect(await metricOf(server, "billing_calls_waiting", { kind: "token" })).toBe(0);
    slow[1]!.release();
    expect((await slow[1]!.answer).status).toBe(201);
    const names = (await server.rest("GET", "/customers", { token })).body.customers.map((c: any) => c.name);
    expect(names.sort()).toEqual(["slow-1", "slow-2"]);
  });

  it("the account's slots bound its tokens together", async () => {
    const { accountId, token } = await server.newAccount();
    const token2 = await secondToken(accountId);
    const slow = [
      await slowCreation(accountId, token, "a-1"),
      await slowCreation(accountId, token, "a-2"),
      await slowCreation(accountId, token2, "b-1"),
    ];
    // token2 has a slot of its two left, but the account's three are taken: it waits (the queue's one place).
    const queued = control.pauseOnce("calls.queued", "account");
    const waiting = server.rest("GET", "/customers", { token: token2 });
    await queued.reached;
    queued.release();
    expectError(
      await server.rest("GET", "/customers", { token: await secondToken(accountId) }),
      429,
      "TOO_MANY_REQUESTS",
    );

    for (const call of slow) call.release();
    expect((await Promise.all(slow.map((call) => call.answer))).map((answer) => answer.status)).toEqual([
      201, 201, 201,
    ]);
    expect((await waiting).status).toBe(200);
  });

  it("a waiting call whose client has gone leaves the queue and never runs", async () => {
    const { accountId, token } = await server.newAccount();
    const slow = [await slowCreation(accountId, token, "held-1"), await slowCreation(accountId, token, "held-2")];

    const queued = control.pauseOnce("calls.queued", "token");
    const client = new AbortController();
    const abandoned = fetch(`${server.url}/customers`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "abandoned" }),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await queued.reached;
    queued.release();

    const dropped = control.pauseOnce("calls.dropped", "token");
    client.abort();
    await dropped.reached;
    dropped.release();
    expect(await abandoned).toBeInstanceOf(Error);

    for (const call of slow) call.release();
    await Promise.all(slow.map((call) => call.answer));
    const names = (await server.rest("GET", "/customers", { token })).body.customers.map((c: any) => c.name);
    expect(names.sort()).toEqual(["held-1", "held-2"]);
  });
});

describe("slots of the instance, shared by accounts in fair turns", () => {
  const control = testHooks();
  // Two calls at once on the instance, two per account; nothing times out in a test.
  const server = useTestServer({
    hooks: control.hooks,
    callLimits: { perToken: 2, perAccount: 2, perInstance: 2, queued: 10, queueMs: 60_000 },
  });

  /** Starts a slow creation and returns once it waits in its account's line (it has no slot yet). */
  const queuedCreation = async (accountId: string, token: string, key: string) => {
    const queued = control.pauseOnce("calls.queued", "account");
    const call = startSlowCreation(server, control, accountId, token, key);
    await queued.reached;
    queued.release();
    return call;
  };

  it("a freed slot goes to the account running fewest calls, the longest unserved first", async () => {
    const [a, b, c] = [await server.newAccount(), await server.newAccount(), await server.newAccount()];
    const running = [
      startSlowCreation(server, control, a.accountId, a.token, "a-1"),
      startSlowCreation(server, control, a.accountId, a.token, "a-2"),
    ];
    await Promise.all(running.map((call) => call.reached));
    // In line, oldest first: B's two calls, then C's one. First come first served would run b-1, b-2, then c-1.
    const b1 = await queuedCreation(b.accountId, b.token, "b-1");
    const b2 = await queuedCreation(b.accountId, b.token, "b-2");
    const c1 = await queuedCreation(c.accountId, c.token, "c-1");
    const firstToStart = (...calls: { reached: Promise<string> }[]) => Promise.race(calls.map((call) => call.reached));

    // A runs 2, B and C none: B has waited longest.
    running[0]!.release();
    expect(await firstToStart(b1, b2, c1)).toBe("b-1");
    // A runs 1, B 1, C none: C's call goes before B's second, older though that is.
    running[1]!.release();
    expect(await firstToStart(b2, c1)).toBe("c-1");
    // B runs 1, C 1; a slot frees: the only one waiting runs.
    b1.release();
    expect(await b2.reached).toBe("b-2");

    for (const call of [b2, c1]) call.release();
    const answers = await Promise.all([...running, b1, b2, c1].map((call) => call.answer));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 201]);
  });

  it("an account under its own limit runs at once while the instance has room", async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const held = startSlowCreation(server, control, a.accountId, a.token, "held");
    await held.reached;
    expect((await server.rest("GET", "/customers", { token: b.token })).status).toBe(200);
    held.release();
    expect((await held.answer).status).toBe(201);
  });
});

describe("an account's slots while another account is active (MAX_CALLS_IN_FLIGHT_PER_ACCOUNT_SHARED)", () => {
  const control = testHooks();
  // Two per account alone, one while another account is active; a window longer than the test.
  const server = useTestServer({
    hooks: control.hooks,
    callLimits: {
      perToken: 2,
      perAccount: 2,
      perInstance: 100,
      queued: 10,
      queueMs: 60_000,
      whileShared: { perAccount: 1, activeWindowMs: 60_000 },
    },
  });

  it("alone an account runs two calls; once another has called, a freed slot is not taken again past one", async () => {
    const a = await server.newAccount();
    const b = await server.newAccount();
    const held = [
      startSlowCreation(server, control, a.accountId, a.token, "a-1"),
      startSlowCreation(server, control, a.accountId, a.token, "a-2"),
    ];
    // Alone, both of A's calls run at once.
    await Promise.all(held.map((call) => call.reached));
    expect((await server.rest("GET", "/customers", { token: b.token })).status).toBe(200);

    held[0]!.release();
    expect((await held[0]!.answer).status).toBe(201);
    // A runs one call and B called within the window: A's next call waits for that one to end.
    const queued = control.pauseOnce("calls.queued", "account");
    const waiting = server.trpc(a.token).customers.list.query({});
    expect(await Promise.race([queued.reached.then(() => "waits"), waiting.then(() => "ran")])).toBe("waits");
    queued.release();
    held[1]!.release();
    expect((await held[1]!.answer).status).toBe(201);
    expect((await waiting).customers.map((customer) => customer.name).sort()).toEqual(["a-1", "a-2"]);
  });
});

describe("an allowance this instance saw spent", () => {
  // A window of an hour: no window boundary falls between the calls of the test.
  const server = useTestServer({ rateLimits: { perWindow: 2, ingestPerWindow: 5, windowSeconds: 3600 } });
  const event = { events: [{ name: "call", timestamp: "2024-01-01T00:00:00Z", customerAlias: "c", ref: "e-1" }] };

  it("is refused before authentication, until its window ends, for its bucket only", async () => {
    const { accountId, token } = await server.newAccount();
    const refusedBefore = await metricOf(server, REFUSED, { reason: "rate_limit" });
    for (let call = 0; call < 2; call += 1) {
      expect((await server.rest("GET", "/customers", { token })).status).toBe(200);
    }
    const refusedByTheDatabase = await server.rest("GET", "/customers", { token });
    expectError(refusedByTheDatabase, 429, "TOO_MANY_REQUESTS");

    // The token is revoked: a call that authenticated would be 401; this one is refused from memory first.
    const tokens = await server.rest("GET", `/admin/accounts/${accountId}/tokens`, { token: ADMIN_TOKEN });
    const tokenId = tokens.body.tokens[0].id as string;
    expect((await server.rest("DELETE", `/admin/tokens/${tokenId}`, { token: ADMIN_TOKEN })).status).toBe(200);
    for (const refused of [
      await server.rest("GET", "/customers", { token }),
      await server.rest("GET", "/meters", { token }),
    ]) {
      expectError(refused, 429, "TOO_MANY_REQUESTS");
      expect(refused.body.message).toMatch(/^Rate limit exceeded: 2 requests per 3600 s for this token; retry in/);
      expect(refused.headers.get("ratelimit-limit")).toBe("2");
      expect(refused.headers.get("ratelimit-remaining")).toBe("0");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("retry-after")).toBe(refused.headers.get("ratelimit-reset"));
    }
    expect(await trpcErrorCode(server.trpc(token).customers.list.query({}))).toBe("TOO_MANY_REQUESTS");
    // One refused by the database's count, three from memory.
    expect((await metricOf(server, REFUSED, { reason: "rate_limit" })) - refusedBefore).toBe(4);
    // Ingestion has an allowance of its own, not spent: that call authenticates, and the token is revoked.
    expectError(await server.rest("POST", "/events", { token, body: event }), 401, "UNAUTHORIZED");
  });
});

describe("a call that waits too long", () => {
  const control = testHooks();
  const server = useTestServer({
    hooks: control.hooks,
    callLimits: { perToken: 1, perAccount: 1, perInstance: 100, queued: 10, queueMs: 50 },
  });

  it("is answered 429 with Retry-After, over REST and tRPC, while the slot stays taken", async () => {
    const { accountId, token } = await server.newAccount();
    const pause = control.pauseOnce("idempotency.complete", `${accountId}/long`);
    const long = server.rest("POST", "/customers", {
      token,
      body: { name: "long" },
      headers: { "idempotency-key": "long" },
    });
    await pause.reached;

    const refused = await server.rest("GET", "/customers", { token });
    expectError(refused, 429, "TOO_MANY_REQUESTS");
    expect(refused.body.message).toMatch(/waited 50 ms/);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await trpcErrorCode(server.trpc(token).customers.list.query({}))).toBe("TOO_MANY_REQUESTS");

    pause.release();
    expect((await long).status).toBe(201);
    expect((await server.rest("GET", "/customers", { token })).status).toBe(200);
  });
});

describe("a read whose client has gone", () => {
  const control = testHooks();
  /** The accounts whose streamed event reads finished a page, in order. */
  const pagesRead: string[] = [];
  // One call per token: the next call of a token runs only once the one before it has ended.
  const server = useTestServer({
    hooks: async (point, subject) => {
      if (point === "events.page") pagesRead.push(subject);
      await control.hooks(point, subject);
    },
    callLimits: { perToken: 1, perAccount: 1, perInstance: 100, queued: 10, queueMs: 60_000 },
  });

  /**
   * An account whose customer "acme" made 300 `call` events of plan "gold" on 2024-03-01, counted by the meter `calls`
   * (filtered on the plan), and one with a number ("1") as its plan, sent before the meter existed (not counted). The
   * rollups keep only sums of a property sent as a number: that day is read from its events (the reads this test
   * stops; other days read rollups only).
   */
  const accountWith300Calls = async () => {
    const account = await billingAccount(server, { name: "Acme", aliases: ["acme"] });
    const numbered = { ref: "call-numbered", name: "call", timestamp: "2024-03-01T11:00:00Z", customerAlias: "acme" };
    await account.post("/events", { events: [{ ...numbered, data: { plan: "1" } }] });
    const meter = {
      key: "calls",
      eventName: "call",
      aggregation: "COUNT",
      filters: [{ property: "plan", in: ["gold"] }],
    };
    await account.post("/meters", meter, 201);
    for (let batch = 0; batch < 3; batch += 1) {
      const events = Array.from({ length: 100 }, (_, index) => ({
        ref: `call-${batch}-${index}`,
        name: "call",
        timestamp: `2024-03-01T10:${String(batch).padStart(2, "0")}:${String(index % 60).padStart(2, "0")}Z`,
        customerAlias: "acme",
        data: { plan: "gold" },
      }));
      await account.post("/events", { events });
    }
    return account;
  };

  /**
   * Sends `request` and checks that it reads every page of the account's events; sends it again, its client leaving
   * while it is paused at its first page, and checks that it then read no further page.
   */
  const stopsAtTheFirstPage = async (
    account: BillingAccount,
    request: { method: string; path: string; body?: unknown },
    answeredWhole: (body: any) => void,
  ) => {
    const pagesOfAccount = () => pagesRead.filter((accountId) => accountId === account.accountId).length;
    const before = pagesOfAccount();
    const answered = await server.rest(request.method, request.path, { token: account.token, body: request.body });
    answeredWhole(answered.body);
    const pagesOfAWholeRead = pagesOfAccount() - before;
    expect(pagesOfAWholeRead).toBeGreaterThan(1);

    const firstPage = control.pauseOnce("events.page", account.accountId);
    const client = new AbortController();
    const abandoned = fetch(`${server.url}${request.path}`, {
      method: request.method,
      headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await firstPage.reached;
    const gone = control.pauseOnce("calls.clientGone", "request");
    client.abort();
    await gone.reached;
    gone.release();
    firstPage.release();
    expect(await abandoned).toBeInstanceOf(Error);

    // The abandoned call has ended once the token's one slot serves another call: it read no page after the first.
    expect((await server.rest("GET", "/meters", { token: account.token })).status).toBe(200);
    expect(pagesOfAccount()).toBe(before + pagesOfAWholeRead + 1);
  };

  it("GET /usage stops reading events at the end of the page it was on; it reads them all otherwise", async () => {
    const account = await accountWith300Calls();
    const path = `/usage?customerId=${account.customerId}&meterKey=calls&startDate=2024-03-01&endDate=2024-03-02`;
    await stopsAtTheFirstPage(account, { method: "GET", path }, (body) => expect(body.usage.value).toBe(300));
  });

  it("POST /invoices/preview stops reading events likewise", async () => {
    const account = await accountWith300Calls();
    const contract = await account.contract({
      startDate: "2024-03-01T00:00:00Z",
      endDate: "2024-04-01T00:00:00Z",
      products: [
        {
          displayName: "Calls",
          catalogProductId: "calls",
          scheduling: monthly(1),
          pricing: { type: "PER_UNIT", price: 0.01 },
        },
      ],
    });
    const body = { contractId: contract.id, at: "2024-03-15T00:00:00Z" };
    // 300 calls × 0.01 = 3.00
    await stopsAtTheFirstPage(account, { method: "POST", path: "/invoices/preview", body }, (answer) =>
      expect(answer.invoice.amount).toBe(3),
    );
  });
});
