import { createHmac, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../server/test/support/server.js";
import { type Receiver, startReceiver } from "../../server/test/support/webhook-receiver.js";
import {
  NotFoundError,
  ValidationError,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "../src/index.js";
import { newClient, rejectionOf, walk } from "./helpers.js";

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  // Retries 200 ms apart and a worker that looks every 50 ms, so deliveries arrive within the test.
  server = await startTestServer({
    webhooks: {
      retrySchedule: [0.2],
      allowPrivateNetworks: true,
      pollIntervalMs: 50,
      sweepIntervalMs: 200,
      sweepMinAgeMs: 2_000,
      timeoutMs: 5_000,
    },
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await server.close();
});

describe("webhookEndpoints", () => {
  it("creates, reads, lists, updates, rotates and deletes endpoints", async () => {
    const { client } = await newClient(server);
    const { endpoint, secret } = await client.webhookEndpoints.create({
      url: "https://hooks.example.com/a",
      eventTypes: ["invoice.created"],
    });
    expect(secret).toMatch(/^whsec_/);
    expect(await client.webhookEndpoints.get(endpoint.id)).toEqual(endpoint);
    const updated = await client.webhookEndpoints.update(endpoint.id, { status: "DISABLED", description: "paused" });
    expect(updated).toMatchObject({
      id: endpoint.id,
      status: "DISABLED",
      description: "paused",
      eventTypes: ["invoice.created"],
    });
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    for (let index = 0; index < 2; index += 1)
      await client.webhookEndpoints.create({ url: `https://hooks.example.com/${index}` });
    expect((await client.webhookEndpoints.list({ limit: 2 })).total).toBe(3);
    expect((await walk(client.webhookEndpoints.listAll({ limit: 2 }), (page) => page.endpoints)).pageSizes).toEqual([
      2, 1,
    ]);
    expect(await client.webhookEndpoints.delete(endpoint.id)).toEqual(updated);
    expect(await rejectionOf(client.webhookEndpoints.get(endpoint.id))).toBeInstanceOf(NotFoundError);
    const unknownType = ["nope" as "invoice.created"];
    const invalid = await rejectionOf(
      client.webhookEndpoints.create({ url: "https://hooks.example.com/", eventTypes: unknownType }),
    );
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues.map((issue) => issue.path)).toEqual(["eventTypes.0"]);
  });
});

describe("verifyWebhook", () => {
  it("types a real delivery, lists and resends it, and refuses a changed, stale or foreign one", async () => {
    const { client } = await newClient(server);
    const { endpoint, secret } = await client.webhookEndpoints.create({
      url: receiver.url,
      eventTypes: ["customer.created"],
    });
    const customer = await client.customers.create({ name: "Hooked" });
    await receiver.waitFor((received) => received.some((request) => request.body.includes(customer.id)));
    const request = receiver.received.find((candidate) => candidate.body.includes(customer.id))!;

    const event: WebhookEvent = verifyWebhook({ payload: request.body, headers: request.headers, secret });
    if (event.type !== "customer.created") throw new Error(`unexpected ${event.type}`);
    // Narrowed by `type`: `data` is a Customer.
    expect(event.data).toEqual(customer);
    expect(
      verifyWebhook({ payload: Buffer.from(request.body), headers: new Headers(request.headers), secret }),
    ).toEqual(event);

    const refusal = (params: Partial<Parameters<typeof verifyWebhook>[0]>) => {
      try {
        verifyWebhook({ payload: request.body, headers: request.headers, secret, ...params });
      } catch (error) {
        return error;
      }
      throw new Error("verified");
    };
    expect(refusal({ payload: request.body.replace("Hooked", "Hacked") })).toBeInstanceOf(WebhookVerificationError);
    expect(refusal({ secret: `whsec_${randomBytes(32).toString("base64")}` })).toBeInstanceOf(WebhookVerificationError);
    expect(refusal({ now: new Date(Date.now() + 6 * 60_000) })).toBeInstanceOf(WebhookVerificationError);
    const { "webhook-signature": _, ...unsigned } = request.headers;
    expect(refusal({ headers: unsigned })).toBeInstanceOf(WebhookVerificationError);
    // A signature made for another timestamp does not pass with this one (the timestamp is signed).
    const key = Buffer.from(secret.slice(6), "base64");
    const later = String(Number(request.headers["webhook-timestamp"]) + 1);
    const resigned = createHmac("sha256", key)
      .update(`${request.headers["webhook-id"]}.${later}.${request.body}`)
      .digest("base64");
    const resignedHeaders = { ...request.headers, "webhook-timestamp": later, "webhook-signature": `v1,${resigned}` };
    expect(verifyWebhook({ payload: request.body, headers: resignedHeaders, secret })).toEqual(event);
    expect(refusal({ headers: { ...request.headers, "webhook-timestamp": later } })).toBeInstanceOf(
      WebhookVerificationError,
    );

    const { deliveries } = await client.webhookEndpoints.listDeliveries(endpoint.id);
    expect(deliveries).toEqual([
      expect.objectContaining({ messageId: request.headers["webhook-id"], status: "SUCCEEDED", attempts: 1 }),
    ]);
    const resent = await client.webhookEndpoints.resendDelivery(deliveries[0]!.id);
    expect(resent).toMatchObject({ id: deliveries[0]!.id, status: "PENDING" });
    const sameId = (candidate: { headers: Record<string, string> }) =>
      candidate.headers["webhook-id"] === request.headers["webhook-id"];
    await receiver.waitFor((received) => received.filter(sameId).length === 2);
    const all = await walk(
      client.webhookEndpoints.listAllDeliveries(endpoint.id, { limit: 1 }),
      (page) => page.deliveries,
    );
    expect(all.ids).toEqual([deliveries[0]!.id]);
  });
});
