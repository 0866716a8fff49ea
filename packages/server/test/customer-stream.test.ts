import { describe, expect, it } from "vitest";
import type { RunningService } from "../src/app.js";
import { changedKinds, cursorOf, digestsOfCursor } from "../src/domain/customer-stream.js";
import { billingAccount, usageProduct } from "./support/billing.js";
import { ADMIN_TOKEN, startTwinService, type TestServer, useServerAndTwin } from "./support/server.js";

/**
 * The customer stream (docs/decisions.md, "The customer stream"): `GET /customers/{id}/stream` sends the customer's
 * usage, balances and invoices as whole states, read from the database, so an instance streams what another stored.
 * Usage is sent on one instance, the stream read from the other.
 */
let server: TestServer;
let twin: RunningService;
useServerAndTwin((both) => ({ server, twin } = both));

interface StreamEvent {
  id: string;
  event: string;
  data: any;
}

/** A connection to a customer's stream: its events as they come, and its end. */
async function connect(url: string, token: string, customerId: string, lastEventId?: string) {
  const controller = new AbortController();
  const response = await fetch(`${url}/customers/${customerId}/stream`, {
    headers: { authorization: `Bearer ${token}`, ...(lastEventId && { "last-event-id": lastEventId }) },
    signal: controller.signal,
  });
  const received: StreamEvent[] = [];
  const waiters: (() => void)[] = [];
  const done = (async () => {
    if (!response.ok || !response.body) return;
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
          const fields = Object.fromEntries(
            buffered
              .slice(0, end)
              .split("\n")
              .filter((line) => !line.startsWith(":") && line.includes(": "))
              .map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]),
          );
          buffered = buffered.slice(end + 2);
          if (fields.id && fields.event && fields.data)
            received.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) });
          for (const wake of waiters.splice(0)) wake();
        }
      }
    } catch {
      // Aborted by the test.
    }
  })();
  return {
    response,
    received,
    /** Resolves with the first event from `from` on that satisfies `test` (events are waited for, never slept on). */
    async until(test: (event: StreamEvent) => boolean, from = 0): Promise<StreamEvent> {
      for (;;) {
        const found = received.slice(from).find(test);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    /** Resolves when the server ends the stream. */
    ended: done,
    async close() {
      controller.abort();
      await done;
    },
  };
}

/** The state a client holds after folding `events` over `state` (a reset replaces it all, the others one kind). */
function fold(events: StreamEvent[], state: Record<string, unknown> = {}) {
  let held = { ...state };
  for (const { event, data } of events) {
    if (event === "reset") held = { ...data };
    else held[event] = data;
  }
  return held;
}

const usageOf = (event: StreamEvent) =>
  (event.event === "reset" ? event.data.usage : event.data).find((one: any) => one.meterKey === "tokens")?.usage;

describe("the customer stream", () => {
  it("500 events sent on one instance, streamed on the other; a client gone midway resumes with Last-Event-ID", {
    timeout: 60_000,
  }, async () => {
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const account = await billingAccount(server, { aliases: ["live-1"] });
    await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
    await account.contract({
      startDate: monthStart,
      products: [usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.01 })],
    });
    /** 50 events of 1 unit each, batch `n` (refs unique), sent to the first instance. */
    const sendBatch = (n: number) =>
      account.post(
        "/events",
        {
          events: Array.from({ length: 50 }, (_, i) => ({
            ref: `b${n}-${i}`,
            name: "tokens",
            timestamp: now.toISOString(),
            customerAlias: "live-1",
            data: { n: "1" },
          })),
        },
        200,
      );

    // First connection (on the twin): a reset with the whole state, usage 0.
    const first = await connect(twin.url, account.token, account.customerId);
    expect(first.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reset = await first.until(() => true);
    expect([reset.event, usageOf(reset)]).toEqual(["reset", 0]);
    expect(reset.data.balances).toEqual([{ currency: "USD", balance: 0 }]);

    // 200 of the 500 events (4 batches of 50): each batch's usage is streamed, measured from its answer.
    const latencies: number[] = [];
    for (let n = 0; n < 4; n += 1) {
      await sendBatch(n);
      const sent = Date.now();
      const from = first.received.length;
      await first.until((event) => event.event === "usage" && usageOf(event) === 50 * (n + 1), 0);
      if (first.received.length > from) latencies.push(Date.now() - sent);
    }
    // Polled every 500 ms: each change is sent within a poll and a read of the state (measured 395–506 ms at a load
    // average of 6; the bound leaves room for a loaded CI machine).
    expect(Math.max(...latencies)).toBeLessThan(1_500);
    const lastId = first.received.at(-1)?.id as string;
    const heldBefore = fold(first.received);
    await first.close();

    // Gone: the other 300 events (6 batches), and a grant of 25.00 (the balance changes too).
    for (let n = 4; n < 10; n += 1) await sendBatch(n);
    await account.grant(25);

    // Back on the other instance with Last-Event-ID: no reset, only the kinds that changed (usage, balances).
    const second = await connect(server.url, account.token, account.customerId, lastId);
    await second.until((event) => event.event === "usage" && usageOf(event) === 500);
    await second.until((event) => event.event === "balances");
    expect(second.received.map((event) => event.event)).not.toContain("reset");
    expect(second.received.map((event) => event.event)).not.toContain("invoices");
    const held = fold(second.received, heldBefore);
    await second.close();

    // The state the client holds is the API's.
    const get = async (path: string) => (await server.rest("GET", path, { token: account.token })).body;
    const entitlements = await get(`/customers/${account.customerId}/entitlements`);
    const balance = await get(`/credits/balance?customerId=${account.customerId}`);
    const invoices = await get(`/invoices?customerId=${account.customerId}&limit=100`);
    expect(held).toEqual({
      usage: entitlements.entitlements,
      balances: balance.balances,
      reservations: [],
      invoices: invoices.invoices.map(({ id, number, status, billingStatus, amount, amountDue }: any) => ({
        ...{ id, number, status, billingStatus, amount, amountDue },
      })),
    });
    expect(usageOf({ event: "usage", id: "", data: held.usage })).toBe(500);
    expect(balance.balances).toEqual([{ currency: "USD", balance: 25 }]);
  });

  it("a reservation made on one instance is streamed on the other; settled or expired, it leaves", {
    timeout: 30_000,
  }, async () => {
    const account = await billingAccount(server, { aliases: ["live-3"] });
    await account.post("/meters", { key: "tokens", eventName: "tokens", aggregation: "SUM", valueProperty: "n" }, 201);
    await account.contract({
      startDate: "2020-01-01T00:00:00Z",
      products: [usageProduct("Tokens", "tokens", { type: "PER_UNIT", price: 0.01 })],
    });
    await account.grant(25);
    const reserve = (body: Record<string, unknown>) =>
      server.rest("POST", `/customers/${account.customerId}/reservations`, { token: account.token, body });
    const stream = await connect(twin.url, account.token, account.customerId);
    const reset = await stream.until(() => true);
    expect([reset.event, reset.data.reservations]).toEqual(["reset", []]);
    const reservationsEvent = (ids: string[]) => (event: StreamEvent) =>
      event.event === "reservations" && event.data.map((one: any) => one.id).join() === ids.join();

    // 40 units for 10 minutes, and 5.00 of the credit balance for 2 s: both held, the sooner to expire first.
    const units = (await reserve({ meterKey: "tokens", amount: 40, ttlSeconds: 600, ref: "u1" })).body.reservation;
    const money = (await reserve({ currency: "USD", amount: 5, ttlSeconds: 2, ref: "m1" })).body.reservation;
    const both = await stream.until(reservationsEvent([money.id, units.id]));
    expect(both.data).toEqual([
      { id: money.id, currency: "USD", amount: 5, expiresAt: money.expiresAt },
      { id: units.id, meterKey: "tokens", amount: 40, expiresAt: units.expiresAt },
    ]);
    // The money one expires unsettled (2 s): it leaves.
    await stream.until(reservationsEvent([units.id]), stream.received.indexOf(both) + 1);
    // The units one is settled with 12: it leaves, and the usage shows the 12.
    const settled = await server.rest("POST", `/reservations/${units.id}/settle`, {
      token: account.token,
      body: { amount: 12 },
    });
    expect(settled.status).toBe(200);
    await stream.until(reservationsEvent([]), stream.received.indexOf(both) + 1);
    await stream.until((event) => event.event === "usage" && usageOf(event) === 12);
    await stream.close();
  });

  it("is 401 without a token, 404 for another account's customer, 429 past 5 an account on all instances", async () => {
    const account = await billingAccount(server, { aliases: ["live-2"] });
    const other = await billingAccount(server);
    expect((await fetch(`${server.url}/customers/${account.customerId}/stream`)).status).toBe(401);
    const foreign = await connect(server.url, other.token, account.customerId);
    expect(foreign.response.status).toBe(404);
    expect((await foreign.response.json()).code).toBe("NOT_FOUND");
    const read = await server.rest("POST", `/admin/accounts/${account.accountId}/tokens`, {
      token: ADMIN_TOKEN,
      body: { scope: "read" },
    });
    // 3 on one instance and 2 on the other (read scope will do): the account's 5.
    const open = [];
    for (let i = 0; i < 5; i += 1) {
      const connection = await connect(i < 3 ? server.url : twin.url, read.body.token, account.customerId);
      expect(connection.response.status).toBe(200);
      open.push(connection);
    }
    // A sixth is refused on either instance: the bound is the account's, held by a lease per connection.
    for (const url of [server.url, twin.url]) {
      const sixth = await connect(url, account.token, account.customerId);
      expect(sixth.response.status).toBe(429);
      expect((await sixth.response.json()).code).toBe("TOO_MANY_REQUESTS");
    }
    // One closed frees its place (its lease deleted at its end): the other instance takes it.
    await open.shift()?.close();
    await expect
      .poll(async () => {
        const next = await connect(twin.url, account.token, account.customerId);
        if (next.response.status === 200) open.push(next);
        return next.response.status;
      })
      .toBe(200);
    await Promise.all(open.map((connection) => connection.close()));
  });

  it("takes over a place whose lease expired (its instance gone): a crash frees it in the lease's 30 s", async () => {
    const account = await billingAccount(server, { aliases: ["live-4"] });
    // Five leases a crashed instance left: expired a second ago.
    const leases = server.service.db.collection("streamLeases");
    const expiresAt = new Date(Date.now() - 1_000);
    await leases.insertMany(
      Array.from({ length: 5 }, (_, k) => ({
        _id: `${account.accountId}/${k}` as any,
        accountId: account.accountId,
        token: `gone-${k}`,
        expiresAt,
      })),
    );
    const connection = await connect(twin.url, account.token, account.customerId);
    expect(connection.response.status).toBe(200);
    const lease = await leases.findOne({ _id: `${account.accountId}/0` as any });
    expect(lease?.token).not.toBe("gone-0");
    expect(lease?.expiresAt.getTime()).toBeGreaterThan(Date.now());
    await connection.close();
  });

  it("renews a lease while its connection lasts; one taken over ends the connection (to reconnect)", async () => {
    const account = await billingAccount(server, { aliases: ["live-5"] });
    // An instance whose leases last 600 ms, renewed every 200 ms.
    const quick = await startTwinService(server, { customerStream: { leaseMs: 600 } });
    try {
      const connection = await connect(quick.url, account.token, account.customerId);
      await connection.until(() => true);
      const leases = server.service.db.collection("streamLeases");
      const place = { _id: `${account.accountId}/0` as any };
      const first = await leases.findOne(place);
      await expect.poll(async () => (await leases.findOne(place))?.expiresAt).not.toEqual(first?.expiresAt);
      // Taken over (as if this instance had stalled past its lease): the renewal finds it gone and ends the stream.
      await leases.deleteOne(place);
      await connection.ended;
      await connection.close();
    } finally {
      await quick.close();
    }
  });

  it("cursors: the digests of what the client holds; an unreadable one is a reset", () => {
    const digests = {
      usage: "a".repeat(16),
      balances: "b".repeat(16),
      reservations: "r".repeat(16),
      invoices: "c".repeat(16),
    };
    expect(digestsOfCursor(cursorOf(digests))).toEqual(digests);
    expect(digestsOfCursor("nonsense")).toBeUndefined();
    // A cursor of three kinds (before reservations were streamed) is unreadable: a reset.
    expect(digestsOfCursor(["a", "b", "c"].map((part) => part.repeat(16)).join("."))).toBeUndefined();
    expect(digestsOfCursor(undefined)).toBeUndefined();
    expect(changedKinds(digests, { ...digests, balances: "d".repeat(16) })).toEqual(["balances"]);
  });
});
