import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startService } from "../src/app.js";
import { createLogger } from "../src/logger.js";
import { sweepChanges } from "../src/services/webhook-sweep.js";
import { committed } from "./support/billing.js";
import { startTestServer, type TestServer, trpcErrorCode } from "./support/server.js";
import { FAST, type Receiver, sleep, startReceiver, sweptSince, typeOf } from "./support/webhook-receiver.js";

let server: TestServer;
const receivers: Receiver[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  server = await startTestServer({
    webhooks: FAST,
    logger: createLogger("warn", { write: (line) => logLines.push(line) }),
  });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await server.close();
});

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

/** A new account with an endpoint at `url`: its token, endpoint and secret. */
async function endpointFor(url: string, eventTypes?: string[], on = server) {
  const { token } = await on.newAccount();
  const created = await on.rest("POST", "/webhook-endpoints", {
    token,
    body: { url, ...(eventTypes && { eventTypes }) },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { token, endpoint: created.body.endpoint, secret: created.body.secret as string };
}

const deliveriesOf = async (token: string, endpointId: string, on = server) =>
  (await on.rest("GET", `/webhook-endpoints/${endpointId}/deliveries?limit=100`, { token })).body.deliveries as any[];

/** Another server instance (its own delivery worker) on the database `dbName`. */
const anotherInstance = (dbName: string, webhooks: typeof FAST) =>
  startService({
    mongodbUri: inject("mongodbUri"),
    dbName,
    host: "127.0.0.1",
    port: 0,
    adminToken: undefined,
    maxBodyBytes: 1024 * 1024,
    webhooks,
  });

/** Polls the endpoint's deliveries until `done` holds. */
async function waitForDeliveries(token: string, endpointId: string, done: (deliveries: any[]) => boolean, on = server) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const deliveries = await deliveriesOf(token, endpointId, on);
    if (done(deliveries)) return deliveries;
    if (Date.now() > deadline)
      throw new Error(`deliveries never reached the expected state: ${JSON.stringify(deliveries)}`);
    await sleep(50);
  }
}

describe("webhook endpoints", () => {
  it("creates an endpoint with a Standard Webhooks secret shown once; reads, lists, updates, deletes it", async () => {
    const { token, endpoint, secret } = await endpointFor("https://hooks.example.com/billing", ["invoice.created"]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64").length).toBeGreaterThanOrEqual(24);
    expect(endpoint).toEqual({
      id: expect.any(String),
      url: "https://hooks.example.com/billing",
      eventTypes: ["invoice.created"],
      status: "ENABLED",
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const got = await server.rest("GET", `/webhook-endpoints/${endpoint.id}`, { token });
    expect(got.body).toEqual({ endpoint });
    expect(JSON.stringify(got.body)).not.toContain(secret.slice(6));

    const patched = await server.rest("PATCH", `/webhook-endpoints/${endpoint.id}`, {
      token,
      body: { eventTypes: [], description: "all events", status: "DISABLED" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.endpoint).toMatchObject({
      id: endpoint.id,
      eventTypes: [],
      description: "all events",
      status: "DISABLED",
    });

    await server.rest("POST", "/webhook-endpoints", { token, body: { url: "https://second.example.com/" } });
    const page = await server.rest("GET", "/webhook-endpoints?limit=1", { token });
    expect(page.body).toMatchObject({ total: 2, hasMore: true, nextCursor: expect.any(String) });
    expect(page.body.endpoints.map((item: { id: string }) => item.id)).toEqual([endpoint.id]);

    expect((await server.rest("DELETE", `/webhook-endpoints/${endpoint.id}`, { token })).status).toBe(200);
    expect((await server.rest("GET", `/webhook-endpoints/${endpoint.id}`, { token })).status).toBe(404);
    expect((await server.rest("DELETE", `/webhook-endpoints/${endpoint.id}`, { token })).status).toBe(404);
  });

  it("refuses a bad URL and an unknown event type with 400 naming the field, on REST and tRPC", async () => {
    const { token, endpoint } = await endpointFor("https://hooks.example.com/");
    const badUrl = await server.rest("POST", "/webhook-endpoints", { token, body: { url: "not a url" } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.issues).toEqual([{ path: "url", message: "must be an absolute https URL" }]);
    const ftp = await server.rest("POST", "/webhook-endpoints", { token, body: { url: "ftp://files.example.com/" } });
    expect(ftp.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["url"]);
    const unknownType = await server.rest("POST", "/webhook-endpoints", {
      token,
      body: { url: "https://a.example.com/", eventTypes: ["invoice.refunded"] },
    });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["eventTypes.0"]);
    const badStatus = await server.rest("PATCH", `/webhook-endpoints/${endpoint.id}`, {
      token,
      body: { status: "PAUSED" },
    });
    expect(badStatus.body.issues.map((issue: { path: string }) => issue.path)).toEqual(["status"]);
    const trpc = server.trpc(token);
    const unknownOverTrpc = trpc.webhookEndpoints.create.mutate({
      url: "https://a.example.com/",
      eventTypes: ["nope" as "invoice.created"],
    });
    expect(await trpcErrorCode(unknownOverTrpc)).toBe("BAD_REQUEST");
    // Nothing was stored by the refused calls.
    expect((await server.rest("GET", "/webhook-endpoints", { token })).body.total).toBe(1);
  });

  it("keeps each account's endpoints and deliveries to itself", async () => {
    const { endpoint } = await endpointFor("https://hooks.example.com/");
    const other = await server.newAccount();
    expect((await server.rest("GET", `/webhook-endpoints/${endpoint.id}`, { token: other.token })).status).toBe(404);
    expect(
      (await server.rest("GET", `/webhook-endpoints/${endpoint.id}/deliveries`, { token: other.token })).status,
    ).toBe(404);
    expect(
      (await server.rest("POST", `/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: other.token })).status,
    ).toBe(404);
    expect((await server.rest("GET", "/webhook-endpoints", { token: other.token })).body.total).toBe(0);
  });
});

describe("webhook delivery", () => {
  it("delivers every event type once, with a signature the standardwebhooks package verifies", async () => {
    const hooks = await receiver();
    const { token, endpoint, secret } = await endpointFor(hooks.url);
    const post = async (path: string, body: unknown) => (await server.rest("POST", path, { token, body })).body;
    const meter = (await post("/meters", { key: "seats", eventName: "seat", aggregation: "COUNT" })).meter;
    const renamed = (await server.rest("PATCH", "/meters/seats", { token, body: { displayName: "Seats" } })).body.meter;
    const taxRate = (await post("/tax-rates", { code: "VAT20", name: "VAT", rate: 20 })).taxRate;
    const renamedRate = (await server.rest("PATCH", "/tax-rates/VAT20", { token, body: { name: "VAT 20 %" } })).body
      .taxRate;
    const customer = (await post("/customers", { name: "Hooked Co" })).customer;
    const updated = (await server.rest("PATCH", `/customers/${customer.id}`, { token, body: { taxId: "FR1" } })).body
      .customer;
    // One cycle, Jan 1 → Feb 1, 2024: 1 seat at 10.00 = 10.00, plus 20 % VAT 2.00 = 12.00, paid by a grant of exactly
    // 12.00: the balance reaches 0.
    const contract = (
      await post("/contracts", {
        customerId: customer.id,
        name: "Plan",
        startDate: "2024-01-01T00:00:00Z",
        endDate: "2024-02-01T00:00:00Z",
        products: [committed(1, 10)],
        taxRateCodes: ["VAT20"],
      })
    ).contract;
    // Effective from before the cycle: a grant effective now could not pay an invoice of 2024.
    const grant = (
      await post("/credits", {
        customerId: customer.id,
        amount: 12,
        type: "Grant",
        effectiveAt: "2023-12-01T00:00:00Z",
      })
    ).entry;
    const run = (await post("/billing-runs", { at: "2024-02-01T00:00:00Z" })).run;
    expect(run.invoiceIds).toHaveLength(1);
    const invoice = (await server.rest("GET", `/invoices/${run.invoiceIds[0]}`, { token })).body.invoice;
    expect(invoice).toMatchObject({
      amount: 0,
      revenueBreakdown: { subtotal: 10, tax: 2, creditsUsed: 12, total: 0 },
      taxSummary: [{ code: "VAT20", name: "VAT 20 %", rate: 20, inclusive: false, taxableAmount: 10, amount: 2 }],
    });
    const deleted = (await server.rest("DELETE", `/contracts/${contract.id}`, { token })).body.contract;

    await hooks.waitFor((received) => received.length >= 13);
    // A sweep that read every change passes: it may add no message for a change that has one.
    await sweptSince(new Date(), server);
    // The run recorded the contract's expiry (its end, Feb 1 2024, has passed): contract.expired.
    expect(await deliveriesOf(token, endpoint.id)).toHaveLength(13);
    const verifier = new Webhook(secret);
    const events = hooks.received.map(
      (request) => verifier.verify(request.body, request.headers) as { type: string; timestamp: string; data: any },
    );
    expect(events.map((event) => event.type).sort()).toEqual([
      "contract.created",
      "contract.deleted",
      "contract.expired",
      "credit.depleted",
      "credit.granted",
      "customer.created",
      "customer.updated",
      "invoice.created",
      "invoice.finalized",
      "meter.created",
      "meter.updated",
      "tax_rate.created",
      "tax_rate.updated",
    ]);
    const dataOf = (type: string) => events.find((event) => event.type === type)!.data;
    expect(dataOf("meter.created")).toEqual(meter);
    expect(dataOf("meter.updated")).toEqual(renamed);
    expect(dataOf("tax_rate.created")).toEqual(taxRate);
    expect(dataOf("tax_rate.updated")).toEqual(renamedRate);
    expect(dataOf("customer.created")).toEqual(customer);
    expect(dataOf("customer.updated")).toEqual(updated);
    expect(dataOf("contract.created")).toEqual(contract);
    expect(dataOf("contract.deleted")).toEqual(deleted);
    expect(dataOf("credit.granted")).toEqual(grant);
    // With no draft period the run makes and finalizes the invoice in one step: both events carry it finalized.
    expect(dataOf("invoice.created")).toEqual(invoice);
    expect(dataOf("invoice.finalized")).toEqual(invoice);
    expect(dataOf("credit.depleted")).toMatchObject({
      type: "Usage",
      amount: -12,
      balanceAfterEntry: 0,
      invoiceId: invoice.id,
    });
    expect(events.find((event) => event.type === "customer.updated")!.timestamp).toBe(updated.updatedAt);
    expect(dataOf("contract.expired")).toMatchObject({ id: contract.id, status: "Expired" });
    expect(new Set(hooks.received.map((request) => request.headers["webhook-id"])).size).toBe(13);
  });

  it("an empty PATCH changes nothing: same updatedAt, no customer.updated; on endpoints too", async () => {
    const hooks = await receiver();
    const { token, endpoint } = await endpointFor(hooks.url, ["customer.created", "customer.updated"]);
    const customer = (await server.rest("POST", "/customers", { token, body: { name: "Untouched" } })).body.customer;
    await sleep(5);
    for (const options of [{ token, body: {} }, { token }]) {
      const patched = await server.rest("PATCH", `/customers/${customer.id}`, options);
      expect(patched.status).toBe(200);
      expect(patched.body.customer).toEqual(customer);
      const samePatch = await server.rest("PATCH", `/webhook-endpoints/${endpoint.id}`, { token, body: {} });
      expect(samePatch.body.endpoint).toEqual(endpoint);
    }
    const renamed = (await server.rest("PATCH", `/customers/${customer.id}`, { token, body: { taxId: "T" } })).body;
    await hooks.waitFor((received) => received.length >= 2);
    // A sweep that read every change passes: it may find no change the empty PATCH made.
    await sweptSince(new Date(), server);
    expect(await deliveriesOf(token, endpoint.id)).toHaveLength(2);
    expect(hooks.received.map(typeOf).sort()).toEqual(["customer.created", "customer.updated"]);
    const update = hooks.received.find((request) => typeOf(request) === "customer.updated")!;
    expect(JSON.parse(update.body).data).toEqual(renamed.customer);
    expect((await server.rest("GET", `/customers/${customer.id}`, { token })).body.customer).toEqual(renamed.customer);
  });

  it("retries a receiver answering 500 twice: the third attempt arrives with the same webhook-id", async () => {
    const hooks = await receiver((_, index) => (index < 2 ? 500 : 200));
    const { token, endpoint } = await endpointFor(hooks.url, ["customer.created"]);
    await server.rest("POST", "/customers", { token, body: { name: "Flaky receiver" } });
    await hooks.waitFor((received) => received.length === 3);
    const [first, second, third] = hooks.received;
    expect(new Set([first, second, third].map((request) => request!.headers["webhook-id"])).size).toBe(1);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(150);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(150);
    const [delivery] = await waitForDeliveries(token, endpoint.id, ([only]) => only?.status === "SUCCEEDED");
    expect(delivery).toMatchObject({
      messageId: first!.headers["webhook-id"],
      eventType: "customer.created",
      attempts: 3,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
  });

  it("fails a delivery once the schedule is spent, and resends it on request with the same webhook-id", async () => {
    let healthy = false;
    const hooks = await receiver(() => (healthy ? 200 : 503));
    const { token, endpoint, secret } = await endpointFor(hooks.url, ["customer.created"]);
    await server.rest("POST", "/customers", { token, body: { name: "Down for a while" } });
    // The first attempt and the schedule's two retries.
    const [failed] = await waitForDeliveries(token, endpoint.id, ([only]) => only?.status === "FAILED");
    expect(failed).toMatchObject({ attempts: 3, lastStatusCode: 503, lastError: null, nextAttemptAt: null });
    // The worker logs after recording the attempt: the last line may follow the FAILED state by a moment.
    const warningsOf = () => logLines.map((line) => JSON.parse(line)).filter((line) => line.deliveryId === failed.id);
    const deadline = Date.now() + 5_000;
    while (warningsOf().length < 3 && Date.now() < deadline) await sleep(20);
    // One `warn` line per failed attempt: two with a retry to follow, then the last.
    const failedAttempt = (attempt: number, outcome: string, msg: string) =>
      expect.objectContaining({
        level: 40,
        msg,
        deliveryId: failed.id,
        endpointId: endpoint.id,
        attempt,
        statusCode: 503,
        error: null,
        outcome,
      });
    const retried = "webhook delivery attempt failed: a retry follows";
    expect(warningsOf()).toEqual([
      failedAttempt(1, "PENDING", retried),
      failedAttempt(2, "PENDING", retried),
      failedAttempt(3, "FAILED", "webhook delivery failed: no attempt left (it can still be resent)"),
    ]);
    expect(warningsOf()[2].nextAttemptAt).toBeNull();
    // Never the secret or the payload.
    for (const line of logLines.filter((text) => text.includes(failed.id))) {
      expect(line).not.toContain(secret);
      expect(line).not.toContain("Down for a while");
    }
    healthy = true;
    const resent = await server.rest("POST", `/webhook-deliveries/${failed.id}/resend`, { token });
    expect(resent.status).toBe(200);
    expect(resent.body.delivery).toMatchObject({ id: failed.id, status: "PENDING", attempts: 3 });
    const [succeeded] = await waitForDeliveries(token, endpoint.id, ([only]) => only?.status === "SUCCEEDED");
    expect(succeeded).toMatchObject({ attempts: 4, lastStatusCode: 200 });
    expect(hooks.received).toHaveLength(4);
    expect(new Set(hooks.received.map((request) => request.headers["webhook-id"]))).toEqual(
      new Set([failed.messageId]),
    );
    expect((await server.rest("POST", "/webhook-deliveries/0123456789abcdef01234567/resend", { token })).status).toBe(
      404,
    );
  });

  it("signs with both secrets for a while after a rotation: each verifies", async () => {
    const hooks = await receiver();
    const { token, endpoint, secret: oldSecret } = await endpointFor(hooks.url, ["customer.created"]);
    const rotated = await server.rest("POST", `/webhook-endpoints/${endpoint.id}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    await server.rest("POST", "/customers", { token, body: { name: "Rotated" } });
    await hooks.waitFor((received) => received.length === 1);
    const [request] = hooks.received;
    expect(request!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(oldSecret).verify(request!.body, request!.headers)).toMatchObject({ type: "customer.created" });
    expect(new Webhook(newSecret).verify(request!.body, request!.headers)).toMatchObject({ type: "customer.created" });
    const stranger = `whsec_${randomBytes(32).toString("base64")}`;
    expect(() => new Webhook(stranger).verify(request!.body, request!.headers)).toThrow();
  });

  it("disables an endpoint that answers 410, and sends it nothing more", async () => {
    const hooks = await receiver(() => 410);
    const { token, endpoint } = await endpointFor(hooks.url, ["customer.created"]);
    await server.rest("POST", "/customers", { token, body: { name: "Gone" } });
    const [delivery] = await waitForDeliveries(token, endpoint.id, ([only]) => only?.status === "FAILED");
    expect(delivery).toMatchObject({ attempts: 1, lastStatusCode: 410 });
    expect((await server.rest("GET", `/webhook-endpoints/${endpoint.id}`, { token })).body.endpoint.status).toBe(
      "DISABLED",
    );
    await server.rest("POST", "/customers", { token, body: { name: "After gone" } });
    // Neither the request nor a sweep after it opened a delivery to the disabled endpoint: none can be sent.
    await sweptSince(new Date(), server);
    expect(await deliveriesOf(token, endpoint.id)).toHaveLength(1);
    expect(hooks.received).toHaveLength(1);
  });

  it("records the message of a change whose request failed to: the sweep delivers it", async () => {
    let failures = 1;
    const flaky = await startTestServer({
      webhooks: FAST,
      hooks: async (point, subject) => {
        if (point === "webhooks.record" && subject === "customer.created" && failures > 0) {
          failures -= 1;
          throw new Error("the database went away");
        }
      },
    });
    try {
      const hooks = await receiver();
      const { token, secret } = await endpointFor(hooks.url, ["customer.created"], flaky);
      const created = await flaky.rest("POST", "/customers", { token, body: { name: "Recovered" } });
      expect(created.status).toBe(201);
      expect(failures).toBe(0);
      await hooks.waitFor((received) => received.length === 1);
      const event = new Webhook(secret).verify(hooks.received[0]!.body, hooks.received[0]!.headers);
      expect(event).toMatchObject({ type: "customer.created", data: created.body.customer });
    } finally {
      await flaky.close();
    }
  });

  it("recovers both the creation and the update of a customer whose requests recorded neither", async () => {
    let failing = true;
    const flaky = await startTestServer({
      webhooks: FAST,
      hooks: async (point) => {
        if (point === "webhooks.record" && failing) throw new Error("the database went away");
      },
    });
    try {
      const hooks = await receiver();
      const types = ["customer.created", "customer.updated"] as const;
      const { token, secret } = await endpointFor(hooks.url, [...types], flaky);
      const { id } = (await flaky.rest("POST", "/customers", { token, body: { name: "Lost twice" } })).body.customer;
      const updated = await flaky.rest("PATCH", `/customers/${id}`, { token, body: { name: "Found twice" } });
      expect(updated.status).toBe(200);
      failing = false;
      await hooks.waitFor((received) => received.length === 2);
      const verifier = new Webhook(secret);
      const events = hooks.received.map(
        (request) => verifier.verify(request.body, request.headers) as { type: string },
      );
      expect(events.map((event) => event.type).sort()).toEqual([...types]);
    } finally {
      await flaky.close();
    }
  });
  it("recovers a contract's lifecycle events (updated, terminated, expired) whose change recorded none", async () => {
    let failing = true;
    const flaky = await startTestServer({
      webhooks: FAST,
      hooks: async (point, subject) => {
        if (point === "webhooks.record" && failing && String(subject).startsWith("contract.")) {
          throw new Error("the database went away");
        }
      },
    });
    try {
      const hooks = await receiver();
      const types = ["contract.expired", "contract.terminated", "contract.updated"] as const;
      const { token, secret } = await endpointFor(hooks.url, [...types], flaky);
      const customerId = (await flaky.rest("POST", "/customers", { token, body: { name: "Lifecycle" } })).body.customer
        .id;
      const contract = async (fields: Record<string, unknown>) =>
        (
          await flaky.rest("POST", "/contracts", {
            token,
            body: { customerId, name: "Plan", startDate: "2024-01-01T00:00:00Z", ...fields },
          })
        ).body.contract;
      const paused = await contract({});
      expect(
        (await flaky.rest("PATCH", `/contracts/${paused.id}`, { token, body: { status: "Inactive" } })).status,
      ).toBe(200);
      const ended = await contract({});
      expect((await flaky.rest("POST", `/contracts/${ended.id}/terminate`, { token, body: {} })).status).toBe(200);
      // Entered after its end: the run records its expiry (and would announce it).
      const seats = { displayName: "Seats", commitment: { units: 1, price: 1 } };
      const expired = await contract({ endDate: "2024-03-01T00:00:00Z", autoRenewContract: false, products: [seats] });
      expect((await flaky.rest("POST", "/billing-runs", { token, body: { at: "2024-04-01T00:00:00Z" } })).status).toBe(
        200,
      );
      failing = false;
      await hooks.waitFor((received) => received.length === 3);
      const verifier = new Webhook(secret);
      const events = hooks.received.map(
        (request) => verifier.verify(request.body, request.headers) as { type: string; data: { id: string } },
      );
      expect(events.map(({ type, data }) => [type, data.id]).sort()).toEqual([
        ["contract.expired", expired.id],
        ["contract.terminated", ended.id],
        ["contract.updated", paused.id],
      ]);
    } finally {
      await flaky.close();
    }
  });
});

describe("credit.depleted from a void or an expiration, at once", () => {
  /** A server whose sweep runs once, at start: whatever is delivered after that, a request recorded. */
  let quiet: TestServer;
  beforeAll(async () => {
    quiet = await startTestServer({ webhooks: { ...FAST, sweepIntervalMs: 3_600_000 } });
    await sweptSince(new Date(0), quiet);
  });
  afterAll(() => quiet.close());

  /** An account with an endpoint taking credit events, a customer, and the means to post as it. */
  async function creditAccount() {
    const hooks = await receiver();
    const { token, endpoint } = await endpointFor(hooks.url, ["credit.depleted"], quiet);
    const post = async (path: string, body?: unknown) => {
      const response = await quiet.rest("POST", path, { token, body });
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
      return response.body;
    };
    const newCustomer = async (name: string) => (await post("/customers", { name })).customer.id as string;
    const deliveries = () => deliveriesOf(token, endpoint.id, quiet);
    return { hooks, token, post, newCustomer, deliveries };
  }

  it("a void that empties the balance: its delivery is open when the call answers, and sent once", async () => {
    const { hooks, post, newCustomer, deliveries } = await creditAccount();
    const customerId = await newCustomer("Voided");
    const grant = (await post("/credits", { customerId, amount: 10, type: "Grant" })).entry;
    const voided = (await post(`/credits/${grant.id}/void`)).entry;
    // 10.00 − 10.00 = 0.
    expect(voided).toMatchObject({ type: "Void", amount: -10, balanceAfterEntry: 0, grantId: grant.id });
    expect((await deliveries()).map((delivery) => delivery.eventType)).toEqual(["credit.depleted"]);
    await hooks.waitFor((received) => received.length === 1);
    expect(JSON.parse(hooks.received[0]!.body)).toEqual({
      type: "credit.depleted",
      timestamp: voided.createdAt,
      data: voided,
    });
    // The sweep derives the same message: it adds no delivery (it has returned: what it adds is stored).
    await sweepChanges(quiet.service.repositories);
    expect(await deliveries()).toHaveLength(1);
    expect(hooks.received).toHaveLength(1);
  });

  it("a void that leaves money on the balance announces nothing", async () => {
    const { post, newCustomer, deliveries } = await creditAccount();
    const customerId = await newCustomer("Keeps some");
    await post("/credits", { customerId, amount: 10, type: "Grant" });
    const extra = (await post("/credits", { customerId, amount: 2.5, type: "Grant" })).entry;
    // 12.50 − 2.50 = 10.00 left.
    expect((await post(`/credits/${extra.id}/void`)).entry).toMatchObject({ amount: -2.5, balanceAfterEntry: 10 });
    expect(await deliveries()).toEqual([]);
  });

  it("an expiration that empties the balance, written by a read or by a billing run", async () => {
    const { hooks, token, post, newCustomer, deliveries } = await creditAccount();
    const [readCustomer, billedCustomer] = [await newCustomer("Read"), await newCustomer("Billed")];
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const readGrant = (await post("/credits", { customerId: readCustomer, amount: 7.5, type: "Grant", expiresAt }))
      .entry;
    const billedGrant = (await post("/credits", { customerId: billedCustomer, amount: 4, type: "Grant", expiresAt }))
      .entry;
    await sleep(Date.parse(expiresAt) - Date.now() + 50);
    expect(await deliveries()).toEqual([]);

    // A read writes the expiration first: 7.50 − 7.50 = 0.
    const balance = await quiet.rest("GET", `/credits/balance?customerId=${readCustomer}`, { token });
    expect(balance.body).toEqual({
      balance: 0,
      currency: "USD",
      balances: [{ currency: "USD", balance: 0 }],
      grants: [],
    });
    expect(await deliveries()).toHaveLength(1);
    // A billing run writes the account's expirations that have come: 4.00 − 4.00 = 0.
    await post("/billing-runs", { at: new Date().toISOString() });
    expect(await deliveries()).toHaveLength(2);

    await hooks.waitFor((received) => received.length === 2);
    expect(hooks.received.map(typeOf)).toEqual(["credit.depleted", "credit.depleted"]);
    const data = hooks.received.map((request) => JSON.parse(request.body).data);
    const ledgerOf = async (customerId: string) =>
      (await quiet.rest("GET", `/credits?customerId=${customerId}`, { token })).body.entries;
    const [readExpiry, billedExpiry] = [(await ledgerOf(readCustomer))[1], (await ledgerOf(billedCustomer))[1]];
    expect(readExpiry).toMatchObject({ type: "Expiration", amount: -7.5, balanceAfterEntry: 0, grantId: readGrant.id });
    expect(billedExpiry).toMatchObject({
      type: "Expiration",
      amount: -4,
      balanceAfterEntry: 0,
      grantId: billedGrant.id,
    });
    expect(data).toEqual(expect.arrayContaining([readExpiry, billedExpiry]));
  });
});

describe("a server stopped mid-delivery", () => {
  it("two instances polling the same attempts claim each once: every message sent once, in one attempt", async () => {
    const hooks = await receiver();
    // A second instance on the shared server's database: two workers polling the same due attempts, a page each.
    const second = await anotherInstance(server.service.db.databaseName, FAST);
    try {
      const { token, endpoint } = await endpointFor(hooks.url, ["customer.created"]);
      for (let index = 0; index < 20; index += 1)
        await server.rest("POST", "/customers", { token, body: { name: `Customer ${index}` } });
      const deliveries = await waitForDeliveries(
        token,
        endpoint.id,
        (deliveries) => deliveries.length === 20 && deliveries.every(({ status }) => status === "SUCCEEDED"),
      );
      expect(deliveries.map(({ attempts }) => attempts)).toEqual(Array(20).fill(1));
      const ids = hooks.received.map(({ headers }) => headers["webhook-id"]);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    } finally {
      await second.close();
    }
  });

  it("works a backlog through page after page, not a page of 16 a poll interval", async () => {
    const hooks = await receiver();
    // Polls a minute apart: the first instance's look at its start finds nothing, and it stops before its next.
    const slow = { ...FAST, pollIntervalMs: 60_000 };
    const first = await startTestServer({ webhooks: slow });
    const { token } = await endpointFor(hooks.url, ["customer.created"], first);
    for (let index = 0; index < 40; index += 1)
      await first.rest("POST", "/customers", { token, body: { name: `Customer ${index}` } });
    const dbName = first.service.db.databaseName;
    await first.service.close();
    expect(hooks.received).toHaveLength(0);
    // The next instance's look at its start finds 40 due: three pages (16, 16, 8), each as soon as the one before is
    // answered; a page a poll interval would send the second a minute later, past this wait.
    const second = await anotherInstance(dbName, slow);
    try {
      await hooks.waitFor((received) => received.length === 40, 20_000);
      expect(new Set(hooks.received.map(({ headers }) => headers["webhook-id"])).size).toBe(40);
    } finally {
      await second.db.dropDatabase();
      await second.close();
    }
  });

  it("gives the attempt back on graceful shutdown; the next instance sends it with the same webhook-id", async () => {
    let release: (status: number) => void = () => {};
    const held = new Promise<number>((resolve) => (release = resolve));
    const hooks = await receiver((_, index) => (index === 0 ? held : 200));
    const first = await startTestServer({ webhooks: FAST });
    const { token, endpoint } = await endpointFor(hooks.url, ["customer.created"], first);
    await first.rest("POST", "/customers", { token, body: { name: "Interrupted" } });
    await hooks.waitFor((received) => received.length === 1);
    const dbName = first.service.db.databaseName;
    // The database stays: only the instance stops, while the receiver still holds the first request.
    await first.service.close();
    release(200);

    const second = await anotherInstance(dbName, FAST);
    try {
      // Within seconds: a claim left behind would hold the attempt until it counted as abandoned (timeout + 30 s).
      await hooks.waitFor((received) => received.length === 2);
      expect(hooks.received[1]!.headers["webhook-id"]).toBe(hooks.received[0]!.headers["webhook-id"]);
      const deliveryOnSecond = async () => {
        const listed = await fetch(`${second.url}/webhook-endpoints/${endpoint.id}/deliveries`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return (await listed.json()).deliveries[0];
      };
      // The answer reached the worker before the delivery is written: wait for that write.
      while ((await deliveryOnSecond()).status === "PENDING") await sleep(50);
      // The cut attempt was given back unmade: the one that succeeded is the first counted.
      expect(await deliveryOnSecond()).toMatchObject({ status: "SUCCEEDED", attempts: 1, lastStatusCode: 200 });
    } finally {
      await second.db.dropDatabase();
      await second.close();
    }
  });
});

describe("webhook URL safety (WEBHOOK_ALLOW_PRIVATE_NETWORKS off, the default)", () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer({ webhooks: { ...FAST, allowPrivateNetworks: false } });
  });
  afterAll(() => strict.close());

  it.each([
    ["http://hooks.example.com/", "must be an https URL"],
    ["https://127.0.0.1:8443/hooks", "must not point to a private, loopback or link-local address"],
    ["https://[::1]/hooks", "must not point to a private, loopback or link-local address"],
    ["https://169.254.169.254/latest/meta-data", "must not point to a private, loopback or link-local address"],
    ["https://10.1.2.3/", "must not point to a private, loopback or link-local address"],
    ["https://[::ffff:192.168.0.1]/", "must not point to a private, loopback or link-local address"],
    ["https://[::127.0.0.1]:8443/h", "must not point to a private, loopback or link-local address"],
    ["https://[::ffff:0:10.0.0.1]/", "must not point to a private, loopback or link-local address"],
    ["https://[64:ff9b::169.254.169.254]/", "must not point to a private, loopback or link-local address"],
    ["https://[2002:c0a8:101::1]/", "must not point to a private, loopback or link-local address"],
  ])("refuses %s", async (url, message) => {
    const { token } = await strict.newAccount();
    const refused = await strict.rest("POST", "/webhook-endpoints", { token, body: { url } });
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual([{ path: "url", message }]);
  });

  it("refuses IPv6 forms of private IPv4 addresses over tRPC too, at creation and on update", async () => {
    const { token } = await strict.newAccount();
    const client = strict.trpc(token);
    for (const url of ["https://[::127.0.0.1]/h", "https://[2002:7f00:1::]/h", "https://[64:ff9b::10.0.0.1]/h"]) {
      expect(await trpcErrorCode(client.webhookEndpoints.create.mutate({ url })), url).toBe("BAD_REQUEST");
    }
    const { endpoint } = await client.webhookEndpoints.create.mutate({ url: "https://hooks.example.com/in" });
    const update = client.webhookEndpoints.update.mutate({
      endpointId: endpoint.id,
      url: "https://[::ffff:0:7f00:1]/",
    });
    expect(await trpcErrorCode(update)).toBe("BAD_REQUEST");
    expect((await client.webhookEndpoints.list.query({})).endpoints.map(({ url }) => url)).toEqual([
      "https://hooks.example.com/in",
    ]);
  });

  it("resolves a name at delivery time and connects to no private address it resolves to", async () => {
    const hooks = await receiver();
    // Accepted when saved (a name), refused when resolved: localhost is loopback.
    const { token, endpoint } = await endpointFor(
      `https://localhost:${hooks.port}/hooks`,
      ["customer.created"],
      strict,
    );
    await strict.rest("POST", "/customers", { token, body: { name: "Rebound" } });
    const [delivery] = await waitForDeliveries(token, endpoint.id, ([only]) => only?.status === "FAILED", strict);
    expect(delivery).toMatchObject({
      attempts: 3,
      lastStatusCode: null,
      lastError: expect.stringMatching(/^localhost resolves to (127\.0\.0\.1|::1), a private address$/),
    });
    expect(hooks.connections()).toBe(0);
  });
});

describe("contract lifecycle events", () => {
  it("a pause is contract.updated, a termination contract.terminated, each with the contract answered", async () => {
    const hooks = await receiver();
    const { token } = await endpointFor(hooks.url, ["contract.updated", "contract.terminated"]);
    const customer = (await server.rest("POST", "/customers", { token, body: { name: "Living Co" } })).body.customer;
    const contract = (
      await server.rest("POST", "/contracts", {
        token,
        body: { customerId: customer.id, name: "Plan", startDate: "2024-01-01T00:00:00Z" },
      })
    ).body.contract;
    const paused = await server.rest("PATCH", `/contracts/${contract.id}`, { token, body: { status: "Inactive" } });
    const ended = await server.rest("POST", `/contracts/${contract.id}/terminate`, { token, body: {} });
    expect([paused.status, ended.status]).toEqual([200, 200]);

    await hooks.waitFor((received) => received.length >= 2);
    const events = hooks.received.map((request) => JSON.parse(request.body));
    expect(events.map((event) => event.type).sort()).toEqual(["contract.terminated", "contract.updated"]);
    const dataOf = (type: string) => events.find((event) => event.type === type).data;
    expect(dataOf("contract.updated")).toEqual(paused.body.contract);
    expect(dataOf("contract.terminated")).toEqual(ended.body.contract);
  });
});
