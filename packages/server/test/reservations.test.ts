import type { Reservation } from "@billing/shared";
import type { CommandStartedEvent } from "mongodb";
import { describe, expect, it } from "vitest";
import type { RunningService } from "../src/app.js";
import { watchEveryClient } from "../src/db/connect.js";
import { messageIdOf } from "../src/domain/webhooks/events.js";
import { workOrigin } from "../src/observability/work-origin.js";
import { sweepChanges } from "../src/services/webhook-sweep.js";
import { billingAccount, monthly } from "./support/billing.js";
import { pooled } from "./support/pooled.js";
import { type TestServer, useServerAndTwin } from "./support/server.js";

/**
 * Reserve and settle (docs/decisions.md, "Reservations"), through REST on two instances of the service sharing one
 * database: every admission is the insert of its chain's next slot, so FerretDB, which loses concurrent updates,
 * still admits exactly what fits.
 */
/**
 * Every command the services' clients send while answering a request, to count what one reservation costs (the
 * workers' polls, which a loaded machine may slip into the window, are left out by their origin).
 */
const commands: CommandStartedEvent[] = [];
watchEveryClient((client) =>
  client.on("commandStarted", (event) => {
    if (workOrigin() === "request") commands.push(event);
  }),
);

let server: TestServer;
let twin: RunningService;
useServerAndTwin((both) => ({ server, twin } = both));

const lastYear = new Date(Date.UTC(new Date().getUTCFullYear() - 1, 0, 1)).toISOString();

/** An account whose customer (alias `alias`) commits to `units` of the SUM meter `tokens` a month (from the 1st). */
async function limitedAccount(alias: string, units = 1000, fields: Record<string, unknown> = {}) {
  const account = await billingAccount(server, { aliases: [alias] }, fields);
  await account.post("/meters", { key: "tokens", eventName: "llm", aggregation: "SUM", valueProperty: "n" }, 201);
  await account.contract({
    startDate: fields.testClock ? "2027-01-01T00:00:00Z" : lastYear,
    products: [
      { displayName: "LLM", catalogProductId: "tokens", scheduling: monthly(1), commitment: { units, price: 1 } },
    ],
  });
  const reserve = (body: Record<string, unknown>, url = server.url, customer = account.customerId) =>
    fetch(`${url}/customers/${customer}/reservations`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
      body: JSON.stringify({ meterKey: "tokens", ttlSeconds: 600, ...body }),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  const settle = (id: string, amount: number, url = server.url) =>
    fetch(`${url}/reservations/${id}/settle`, {
      method: "POST",
      headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
      body: JSON.stringify({ amount }),
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
  const entitlement = async (meterKey = "tokens") =>
    (await server.rest("GET", `/customers/${account.customerId}/entitlements/${meterKey}`, { token: account.token }))
      .body.entitlement;
  return { ...account, reserve, settle, entitlement };
}

/**
 * The issue's case: 200 reservations of 10 against 1,000 (100 fit, 100 refused), on two instances, 16 in flight at a
 * time (8 per instance): every slot is raced for by up to 16 writers. Measured here: 29–32 s at a load average of 18
 * (other helpers' suites and CI on the 2 cores), 15.8 s at 9. All 200 at once pass too (IN_FLIGHT = 200), in 49.5 s at
 * that load: FerretDB, which decodes a whole collection per read, is the bottleneck, each lost slot an insert and a
 * read (docs/decisions.md, "Reservations", Cost), so the suite keeps 16.
 */
const RESERVATIONS = 200;
const IN_FLIGHT = 16;

describe("the cost of a reservation", () => {
  it("is a fixed number of index-served commands on a chain nobody races for", async () => {
    const account = await limitedAccount("costed");
    await account.reserve({ amount: 1, ref: "warm" });
    const database = server.service.db.databaseName;
    const from = commands.length;
    const answer = await account.reserve({ amount: 10, ref: "costed-1" });
    expect(answer.status).toBe(201);
    const sent = commands
      .slice(from)
      .filter((event) => event.databaseName === database)
      .map(({ commandName, command }) => `${commandName} ${command[commandName]}`);
    // Measured: 15 commands — 2 of every authenticated call here (its rate-limit slot, its account; the token's reads,
    // `tokens` and `tokenEnds`, only when its cached answer is stale: left out), 10 reads (customer, meter, contracts
    // and their transitions, the chain's head, its holding slots with any of the ref in one read, their settlements,
    // the cycle's usage: measurements, rollups twice), the slot's insert (its one write: it decides the ref in its
    // chain too, where a claim's insert did before: 16), the endpoints' read for `reservation.created` and the audit
    // entry. Every write an insert; no update. The customer and the meter are read once (the usage read is handed
    // them: 18 before).
    const ofReservation = sent.filter((name) => !/^find token/.test(name));
    expect(ofReservation.length, sent.join(", ")).toBeLessThanOrEqual(15);
    expect(sent.filter((name) => name === "find customers" || name === "find meters")).toEqual([
      "find customers",
      "find meters",
    ]);
    expect(sent.filter((name) => !name.startsWith("find "))).toEqual([
      "insert rateLimitSlots",
      "insert reservations",
      "insert auditLog",
    ]);
  });
});

describe("reservations against a limit, concurrently on two instances", () => {
  it(`limit 1,000, ${RESERVATIONS} reservations of 10 (${IN_FLIGHT} at a time): exactly 100 admitted`, {
    timeout: 150_000,
  }, async () => {
    const account = await limitedAccount("racer");
    const urls = [server.url, twin.url];
    const first = await pooled(
      Array.from({ length: RESERVATIONS }, (_, i) => () => account.reserve({ amount: 10, ref: `r${i}` }, urls[i % 2])),
      IN_FLIGHT,
    );
    const admitted = first.filter((answer) => answer.status === 201);
    const refused = first.filter((answer) => answer.status !== 201);
    // 1,000 / 10 = 100 fit: the 100 others are refused with nothing left.
    expect(admitted).toHaveLength(100);
    expect(refused).toHaveLength(RESERVATIONS - 100);
    for (const answer of refused) {
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ code: "LIMIT_REACHED", message: "LIMIT_REACHED: 0 remaining", remaining: 0 });
    }
    // Slots 1…100 of one chain, each holding 10.
    const slots = admitted.map((answer) => Number(answer.body.reservation.id.split("_").at(-1))).sort((a, b) => a - b);
    expect(slots).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect((await account.reserve({ amount: 10, ref: "late" }, twin.url)).status).toBe(409);

    // Settle 7 of each (alternating instances): usage 100 × 7 = 700, nothing held, 1,000 − 700 = 300 remaining.
    const settled = await pooled(
      admitted.map((answer, i) => () => account.settle(answer.body.reservation.id, 7, urls[i % 2])),
      IN_FLIGHT,
    );
    expect(settled.map((answer) => answer.status)).toEqual(admitted.map(() => 200));
    expect(settled[0]?.body.reservation).toMatchObject({ status: "SETTLED", amount: 10, settledAmount: 7 });
    expect(await account.entitlement()).toMatchObject({ usage: 700, limit: 1000, remaining: 300 });

    // 300 fit exactly; then 0 remain.
    expect((await account.reserve({ amount: 300, ref: "rest" })).status).toBe(201);
    const over = await account.reserve({ amount: 0.000001, ref: "over" }, twin.url);
    expect(over.status).toBe(409);
    expect(over.body.issues).toEqual([{ path: "amount", message: "LIMIT_REACHED: exceeds the 0 remaining" }]);
  });
});

const isReservationEvent = (type: string) => type.startsWith("reservation.");

describe("settling", () => {
  it("records the usage once under the reservation's ref, frees the rest, and refuses another amount", async () => {
    const account = await limitedAccount("settler", 100);
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/r" }, 201);
    const held = (await account.reserve({ amount: 60, ref: "call-1" })).body.reservation;
    expect(held).toMatchObject({ status: "OPEN", amount: 60, ref: "call-1", customerId: account.customerId });
    // 100 − 60 held = 40 left: 41 does not fit.
    const refused = await account.reserve({ amount: 41, ref: "call-2" });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: "LIMIT_REACHED",
      message: "LIMIT_REACHED: 40 remaining",
      remaining: 40,
    });
    expect((await account.settle(held.id, 61)).status).toBe(400);
    const once = await account.settle(held.id, 25.5);
    expect(once.status).toBe(200);
    // The same amount again answers the same; another amount is 409.
    expect((await account.settle(held.id, 25.5)).body).toEqual(once.body);
    expect((await account.settle(held.id, 20)).status).toBe(409);
    // One event of 25.5 under ref call-1: usage 25.5, 100 − 25.5 = 74.5 left, so 41 fits now.
    const events = await server.rest("GET", `/events?startTime=2020-01-01T00:00:00Z&endTime=2100-01-01T00:00:00Z`, {
      token: account.token,
    });
    expect(events.body.events?.map((event: any) => [event.ref, event.data])).toEqual([["call-1", { n: "25.5" }]]);
    expect(await account.entitlement()).toMatchObject({ usage: 25.5, remaining: 74.5 });
    expect((await account.reserve({ amount: 41, ref: "call-2" })).status).toBe(201);
    // A ref names one reservation.
    expect((await account.reserve({ amount: 1, ref: "call-2" })).status).toBe(409);
    const got = await server.rest("GET", `/reservations/${held.id}`, { token: account.token });
    expect(got.body.reservation).toEqual(once.body.reservation);
    // One message each: created twice (call-1, call-2), settled once although settled twice with 25.5.
    const deliveries = await server.rest("GET", `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`, {
      token: account.token,
    });
    const types = deliveries.body.deliveries.map((delivery: any) => delivery.eventType).filter(isReservationEvent);
    expect(types.sort()).toEqual(["reservation.created", "reservation.created", "reservation.settled"]);
  });

  it("a COUNT meter settles whole events (refs ref, ref:2…); MAX is a cap; LATEST cannot be reserved", async () => {
    const account = await limitedAccount("kinds", 5);
    await account.post("/meters", { key: "calls", eventName: "call", aggregation: "COUNT" }, 201);
    await account.post("/meters", { key: "peak", eventName: "p", aggregation: "MAX", valueProperty: "v" }, 201);
    await account.post("/meters", { key: "last", eventName: "l", aggregation: "LATEST", valueProperty: "v" }, 201);
    const latest = await account.reserve({ meterKey: "last", amount: 1, ref: "l1" });
    expect(latest.status).toBe(400);
    expect(latest.body.issues[0].path).toBe("meterKey");
    expect((await account.reserve({ meterKey: "calls", amount: 1.5, ref: "c0" })).body.issues[0].path).toBe("amount");
    const calls = (await account.reserve({ meterKey: "calls", amount: 4, ref: "c1" })).body.reservation;
    expect((await account.settle(calls.id, 3)).status).toBe(200);
    const events = await server.rest("GET", `/events?startTime=2020-01-01T00:00:00Z&endTime=2100-01-01T00:00:00Z`, {
      token: account.token,
    });
    expect(events.body.events.map((event: any) => event.ref).sort()).toEqual(["c1", "c1:2", "c1:3"]);
    // No contract names `calls`: unlimited, its usage 3 over the month.
    expect(await account.entitlement("calls")).toMatchObject({ usage: 3, limit: null });
    // No contract names `peak` either: any value fits.
    expect((await account.reserve({ meterKey: "peak", amount: 64, ref: "p1" })).status).toBe(201);
  });
});

describe("expiry", () => {
  it("an unsettled reservation holds nothing after its TTL (+10 s margin), and cannot be settled", async () => {
    const at = "2027-03-10T00:00:00.000Z";
    const account = await limitedAccount("expiring", 100, { testClock: { at } });
    const held = (await account.reserve({ amount: 100, ttlSeconds: 60, ref: "e1" })).body.reservation;
    expect(held.expiresAt).toBe("2027-03-10T00:01:00.000Z");
    expect((await account.reserve({ amount: 1, ref: "e2" })).status).toBe(409);
    const advance = (to: string) => server.rest("POST", "/test-clock/advance", { token: account.token, body: { to } });
    expect((await advance("2027-03-10T00:01:00.000Z")).status).toBe(200);
    // Expired at 00:01:00, but its units stay held until 00:01:10 (a settle accepted at 00:00:59.9 is writing).
    const expired = await server.rest("GET", `/reservations/${held.id}`, { token: account.token });
    expect(expired.body.reservation.status).toBe("EXPIRED");
    expect((await account.settle(held.id, 5)).status).toBe(409);
    expect((await account.reserve({ amount: 1, ref: "e3" })).status).toBe(409);
    expect((await advance("2027-03-10T00:01:10.000Z")).status).toBe(200);
    expect((await account.reserve({ amount: 100, ref: "e4" })).status).toBe(201);
  });
});

describe("reservation.expired", () => {
  it("is announced once by the sweep for each reservation whose TTL passed unsettled, not a settled one", async () => {
    const account = await limitedAccount("announced", 100);
    const { endpoint } = await account.post("/webhook-endpoints", { url: "https://hooks.example.com/x" }, 201);
    const lapsed = (await account.reserve({ amount: 10, ttlSeconds: 60, ref: "x1" })).body.reservation;
    const settled = (await account.reserve({ amount: 10, ttlSeconds: 60, ref: "x2" })).body.reservation;
    const open = (await account.reserve({ amount: 10, ttlSeconds: 3600, ref: "x3" })).body.reservation;
    expect((await account.settle(settled.id, 4)).status).toBe(200);
    const expiredOnes = async () => {
      const path = `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`;
      const { deliveries } = (await server.rest("GET", path, { token: account.token })).body;
      return deliveries.filter((delivery: any) => delivery.eventType === "reservation.expired");
    };
    // A sweep as of 61 s from now (within its 5-minute overlap: the marks it moves are read again by real sweeps):
    // x1 and x2 are past their 60 s, x2 settled; x3 has an hour left. Twice: one message all the same.
    const later = new Date(Date.now() + 61_000);
    await sweepChanges(server.service.repositories, later);
    await sweepChanges(twin.repositories, later);
    const expired = await expiredOnes();
    expect(expired).toHaveLength(1);
    // Its message is x1's (the id derives from the account, the type and the reservation), not x2's nor x3's.
    const messageOf = (reservation: Reservation) =>
      messageIdOf(account.accountId, { type: "reservation.expired", data: reservation });
    expect(expired[0].messageId).toBe(messageOf(lapsed));
    expect([messageOf(settled), messageOf(open)]).not.toContain(expired[0].messageId);
  });
});
