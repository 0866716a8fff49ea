import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { parseSealingKeys, type SealingKey } from "../src/auth/secret-box.js";
import { startTestServer, startTwinService, type TestServer } from "./support/server.js";
import { FAST, type Receiver, startReceiver } from "./support/webhook-receiver.js";

/** Signing secrets at rest (WEBHOOK_SECRET_KEYS; docs/decisions.md, "Webhooks" → Secrets at rest). */

const newKey = (): SealingKey => {
  const keys = parseSealingKeys(randomBytes(32).toString("hex"));
  if (typeof keys === "string") throw new Error(keys);
  return keys[0] as SealingKey;
};

const closing: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const item of closing.reverse()) await item.close();
});

async function started<T extends { close(): Promise<unknown> }>(item: Promise<T>): Promise<T> {
  closing.push(await item);
  return closing.at(-1) as T;
}

/** A new account of `server` with an endpoint at the receiver taking customer.created: its token, endpoint, secret. */
async function endpointFor(server: TestServer, receiver: Receiver) {
  const { token } = await server.newAccount();
  const created = await server.rest("POST", "/webhook-endpoints", {
    token,
    body: { url: receiver.url, eventTypes: ["customer.created"] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { token, endpointId: created.body.endpoint.id as string, secret: created.body.secret as string };
}

const storedSecrets = (server: TestServer, endpointId: string) =>
  server.service.db.collection("webhookSecrets").find({ endpointId }).sort({ generation: 1 }).toArray();

describe("webhook signing secrets at rest", () => {
  it("are stored sealed by the first key, and sign deliveries a receiver verifies", async () => {
    const key = newKey();
    const server = await started(startTestServer({ webhooks: FAST, sealingKeys: [key, newKey()] }));
    const receiver = await started(startReceiver());
    const { token, endpointId, secret } = await endpointFor(server, receiver);

    const [stored] = await storedSecrets(server, endpointId);
    expect(stored?.secret).toMatch(new RegExp(`^sealed\\.v1\\.${key.id}\\.`));
    expect(JSON.stringify(await server.service.db.collection("webhookSecrets").find().toArray())).not.toContain(
      secret.slice("whsec_".length),
    );

    const customer = await server.rest("POST", "/customers", { token, body: { name: "Sealed" } });
    await receiver.waitFor((received) => received.length === 1);
    const [delivery] = receiver.received;
    const event = new Webhook(secret).verify(delivery?.body ?? "", delivery?.headers ?? {});
    expect(event).toMatchObject({ type: "customer.created", data: { id: customer.body.customer.id } });

    const rotated = await server.rest("POST", `/webhook-endpoints/${endpointId}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    const generations = await storedSecrets(server, endpointId);
    expect(generations.map((doc) => doc.secret.startsWith(`sealed.v1.${key.id}.`))).toEqual([true, true]);
  });

  it("fail attempts visibly while their key is not listed, and deliver once it is listed again", async () => {
    const [oldKey, newerKey] = [newKey(), newKey()];
    // The first instance creates the endpoint; its worker looks once, at start: the twins deliver.
    const idle = { ...FAST, pollIntervalMs: 3_600_000, sweepIntervalMs: 3_600_000 };
    const server = await started(startTestServer({ webhooks: idle, sealingKeys: [oldKey] }));
    const receiver = await started(startReceiver());
    const { token, endpointId, secret } = await endpointFor(server, receiver);

    const withoutOldKey = await startTwinService(server, { webhooks: FAST, sealingKeys: [newerKey] });
    await server.rest("POST", "/customers", { token, body: { name: "Waits for its key" } });
    const deliveries = async () =>
      (await server.rest("GET", `/webhook-endpoints/${endpointId}/deliveries`, { token })).body.deliveries;
    const deadline = Date.now() + 10_000;
    while ((await deliveries())[0]?.attempts === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await withoutOldKey.close();
    const [pending] = await deliveries();
    expect(pending).toMatchObject({
      status: "PENDING",
      lastStatusCode: null,
      lastError: `the signing secret is sealed with key ${oldKey.id}, which WEBHOOK_SECRET_KEYS lacks`,
    });
    expect(pending.attempts).toBeGreaterThanOrEqual(1);
    expect(receiver.received).toEqual([]);

    // The operator lists the old key again, after the new one (which seals from now on).
    await started(startTwinService(server, { webhooks: FAST, sealingKeys: [newerKey, oldKey] }));
    await receiver.waitFor((received) => received.length === 1);
    const [delivery] = receiver.received;
    expect(new Webhook(secret).verify(delivery?.body ?? "", delivery?.headers ?? {})).toMatchObject({
      type: "customer.created",
    });
  });
});
