import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../src/app.js";
import { billingAccount } from "./support/billing.js";
import { useTestServer } from "./support/harness.js";
import { startTwinService } from "./support/server.js";
import { FAST, type Receiver, startReceiver } from "./support/webhook-receiver.js";

/**
 * Alerts through REST: ingestion (events or a measurement) that takes a customer's usage to a threshold sends one
 * `usage.threshold_crossed` per alert, customer, threshold and period, whichever instance evaluates it and however
 * often. Usage is counted by a COUNT meter: each event is 1.
 */
const server = useTestServer({ webhooks: FAST });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const DAY_MS = 86_400_000;
const midnight = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/** The crossings the receiver got for one customer, by period then threshold (deliveries run in parallel). */
const crossingsOf = (customerId: string) =>
  receiver.received
    .map((request) => JSON.parse(request.body))
    .filter((body) => body.type === "usage.threshold_crossed" && body.data.customerId === customerId)
    .map((body) => body.data)
    .sort((a, b) => a.periodStart.localeCompare(b.periodStart) || a.threshold - b.threshold);

/** An account sending crossings to the receiver, with a COUNT meter `calls` on `api_call` and a customer `alias`. */
async function alertingAccount(alias: string) {
  const account = await billingAccount(server, { aliases: [alias] });
  const { endpoint } = await account.post(
    "/webhook-endpoints",
    { url: receiver.url, eventTypes: ["usage.threshold_crossed"] },
    201,
  );
  await account.post("/meters", { key: "calls", eventName: "api_call", aggregation: "COUNT" }, 201);
  let sent = 0;
  /** `count` new events of the customer at `at` (default: a second ago). */
  const send = async (count: number, at = new Date(Date.now() - 1000)) => {
    const events = Array.from({ length: count }, (_, index) => ({
      ref: `${alias}-${sent + index}`,
      name: "api_call",
      timestamp: at.toISOString(),
      customerAlias: alias,
    }));
    sent += count;
    const response = await server.rest("POST", "/events", { token: account.token, body: { events } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return events;
  };
  const alert = async (thresholds: number[], period = "DAY") =>
    (await account.post("/alerts", { customerId: account.customerId, meterKey: "calls", thresholds, period }, 201))
      .alert;
  /**
   * The deliveries opened to the account's endpoint (one per crossing) once every instance that took its usage has
   * evaluated it: nothing else can cross later, so this is the whole set, proven without waiting a while.
   */
  const settledDeliveries = async (instances: RunningService[] = [server.service]) => {
    await Promise.all(instances.map((instance) => instance.alertsEvaluated()));
    const path = `/webhook-endpoints/${endpoint.id}/deliveries?limit=100`;
    return (await server.rest("GET", path, { token: account.token })).body.deliveries as unknown[];
  };
  return { ...account, send, alert, settledDeliveries };
}

/**
 * The customer's crossings once evaluation has settled: exactly `count` deliveries were opened (none extra, whatever
 * arrives later), and the receiver got each of them.
 */
async function settledCrossings(
  account: Awaited<ReturnType<typeof alertingAccount>>,
  count: number,
  instances?: RunningService[],
) {
  // Delivered by the worker within its poll interval; a loaded machine may take seconds (speed is the bench's).
  await receiver.waitFor(() => crossingsOf(account.customerId).length >= count, 20_000);
  expect(await account.settledDeliveries(instances)).toHaveLength(count);
  return crossingsOf(account.customerId);
}

describe("usage.threshold_crossed", () => {
  it("a batch crossing two thresholds fires two webhooks, each once", async () => {
    const account = await alertingAccount("two-in-one");
    const alert = await account.alert([2, 5, 7]);
    const today = midnight(new Date());
    await account.send(6); // usage 6 ≥ 2 and ≥ 5, < 7
    const crossings = await settledCrossings(account, 2);
    expect(crossings.map(({ threshold, value }) => [threshold, value])).toEqual([
      [2, 6],
      [5, 6],
    ]);
    expect(crossings[0]).toMatchObject({
      alertId: alert.id,
      meterKey: "calls",
      periodStart: today.toISOString(),
      periodEnd: new Date(today.getTime() + DAY_MS).toISOString(),
    });
  });

  it("a second instance evaluating the same usage again fires only the threshold newly reached", async () => {
    const account = await alertingAccount("twin");
    await account.alert([2, 5, 7]);
    const first = await account.send(6);
    await settledCrossings(account, 2);
    const twin = await startTwinService(server);
    try {
      // The same batch again (duplicates) on the twin: evaluated there, nothing new.
      const again = await server.rest("POST", "/events", { token: account.token, body: { events: first } });
      expect(again.body.duplicates).toHaveLength(6);
      await fetch(`${twin.url}/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
        body: JSON.stringify({ events: first }),
      });
      // One more event on the twin: usage 7 reaches the third threshold only.
      const response = await fetch(`${twin.url}/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          events: [{ ref: "twin-7", name: "api_call", timestamp: new Date().toISOString(), customerAlias: "twin" }],
        }),
      });
      expect(response.status).toBe(200);
      const crossings = await settledCrossings(account, 3, [server.service, twin]);
      expect(crossings.map(({ threshold }) => threshold)).toEqual([2, 5, 7]);
    } finally {
      await twin.close();
    }
  });

  it("two instances ingesting at once fire each threshold once", async () => {
    const account = await alertingAccount("race");
    await account.alert([1, 3]);
    const twin = await startTwinService(server);
    try {
      const post = (url: string, ref: string) =>
        fetch(`${url}/events`, {
          method: "POST",
          headers: { authorization: `Bearer ${account.token}`, "content-type": "application/json" },
          body: JSON.stringify({
            events: [ref, `${ref}-b`].map((one) => ({
              ref: one,
              name: "api_call",
              timestamp: new Date(Date.now() - 1000).toISOString(),
              customerAlias: "race",
            })),
          }),
        });
      // 2 events on each instance: usage 4 once both are stored; each instance may see 2 or 4.
      await Promise.all([post(server.url, "race-a"), post(twin.url, "race-b")]);
      const crossings = await settledCrossings(account, 2, [server.service, twin]);
      expect(crossings.map(({ threshold }) => threshold)).toEqual([1, 3]);
    } finally {
      await twin.close();
    }
  });

  it("a measurement lowering usage does not fire a crossed threshold again", async () => {
    const account = await alertingAccount("lowered");
    await account.alert([2, 5, 10]);
    const today = new Date().toISOString().slice(0, 10);
    await account.send(6); // usage 6: 2 and 5 fire
    await settledCrossings(account, 2);
    await account.measure("calls", today, 1); // the day's usage is now 1
    await account.measure("calls", today, 6); // back to 6: 2 and 5 stay crossed, nothing fires
    expect(await account.settledDeliveries()).toHaveLength(2);
    await account.measure("calls", today, 10); // 10 reaches the last threshold only
    const crossings = await settledCrossings(account, 3);
    expect(crossings.map(({ threshold, value }) => [threshold, value])).toEqual([
      [2, 6],
      [5, 6],
      [10, 10],
    ]);
  });

  it("a DAY alert fires again the next UTC day", async () => {
    const account = await alertingAccount("daily");
    await account.alert([3]);
    const today = midnight(new Date());
    const yesterday = new Date(today.getTime() - DAY_MS);
    await account.send(3, new Date(yesterday.getTime() + 3_600_000)); // yesterday 01:00: usage 3 reaches 3
    await settledCrossings(account, 1);
    await account.send(3); // today: a new period, usage 3 again
    const crossings = await settledCrossings(account, 2);
    expect(crossings.map(({ periodStart, value }) => [periodStart, value])).toEqual([
      [yesterday.toISOString(), 3],
      [today.toISOString(), 3],
    ]);
  });

  it("a CYCLE alert counts the billing cycle of the contract pricing the meter", async () => {
    const account = await alertingAccount("cycle");
    const now = new Date();
    // Monthly on the 1st from January of last year: the cycle is this calendar month.
    const start = new Date(Date.UTC(now.getUTCFullYear() - 1, 0, 1)).toISOString();
    const product = { displayName: "API", catalogProductId: "calls", pricing: { type: "PER_UNIT", price: 0.5 } };
    await account.contract({
      startDate: start,
      products: [{ ...product, scheduling: { duration: { unit: "MONTH", value: 1 }, billingDay: 1 } }],
    });
    await account.alert([2], "CYCLE");
    await account.send(2);
    const [crossing] = await settledCrossings(account, 1);
    expect(crossing).toMatchObject({
      threshold: 2,
      value: 2,
      periodStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      periodEnd: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    });
  });
});

describe("the scheduler's sweep", () => {
  it("fires a crossing that no evaluation after ingestion saw", async () => {
    const account = await alertingAccount("swept");
    await account.send(4); // stored before the alert exists: no evaluation after ingestion covers it
    await account.alert([3]);
    expect(await account.settledDeliveries()).toEqual([]);
    const scheduled = await startTwinService(server, { billingScheduler: { intervalMs: 100 } });
    try {
      const [crossing] = await settledCrossings(account, 1);
      expect(crossing).toMatchObject({ threshold: 3, value: 4 });
    } finally {
      await scheduled.close();
    }
  });
});

describe("alerts", () => {
  it("are created, listed, read and deleted; bad thresholds and unknown meters are refused", async () => {
    const account = await alertingAccount("crud");
    const created = await account.alert([1.5, 2]);
    expect(created).toMatchObject({ customerId: account.customerId, meterKey: "calls", thresholds: [1.5, 2] });
    const list = await server.rest("GET", "/alerts", { token: account.token });
    expect(list.body.alerts.map(({ id }: { id: string }) => id)).toEqual([created.id]);
    expect((await server.rest("GET", `/alerts/${created.id}`, { token: account.token })).body.alert).toEqual(created);
    const bad = await server.rest("POST", "/alerts", {
      token: account.token,
      body: { meterKey: "calls", thresholds: [5, 5], period: "DAY" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].path).toBe("thresholds.1");
    const unknown = await server.rest("POST", "/alerts", {
      token: account.token,
      body: { meterKey: "nope", thresholds: [1], period: "WEEK" },
    });
    expect(unknown.status).toBe(400);
    const noMeter = await server.rest("POST", "/alerts", {
      token: account.token,
      body: { meterKey: "nope", thresholds: [1], period: "DAY" },
    });
    expect(noMeter.status).toBe(404);
    expect((await server.rest("DELETE", `/alerts/${created.id}`, { token: account.token })).status).toBe(200);
    expect((await server.rest("GET", `/alerts/${created.id}`, { token: account.token })).status).toBe(404);
  });
});
