import { randomBytes } from "node:crypto";
import { createTRPCClient, httpLink } from "@trpc/client";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { parseSealingKeys, type SealingKey } from "../src/auth/secret-box.js";
import type { AppRouter } from "../src/routers/index.js";
import { startTestServer, startTwinService, type TestServer } from "./support/server.js";
import { everythingStored } from "./support/stored-data.js";
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

/** The part of a `whsec_` secret that is the key itself. */
const keyOf = (secret: string) => secret.slice("whsec_".length);

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

  it("are in no kept answer: a keyed creation or rotation, over REST or tRPC, leaves no secret stored", async () => {
    const server = await started(startTestServer({ sealingKeys: [newKey()] }));
    const { token } = await server.newAccount();
    const keyed = (key: string) => ({ token, headers: { "idempotency-key": key } });
    const trpcKeyed = (key: string) =>
      createTRPCClient<AppRouter>({
        links: [
          httpLink({
            url: `${server.url}/trpc`,
            headers: () => ({ authorization: `Bearer ${token}`, "idempotency-key": key }),
          }),
        ],
      });
    const shown: string[] = [];
    const expectNoneStored = async () => {
      const stored = await everythingStored(server.service.db);
      for (const secret of shown) expect(stored).not.toContain(keyOf(secret));
    };

    const body = { url: "https://hooks.example.com/in", eventTypes: ["customer.created" as const] };
    const created = await server.rest("POST", "/webhook-endpoints", { ...keyed("create-1"), body });
    expect(created.status).toBe(201);
    shown.push(created.body.secret);
    await expectNoneStored();
    const endpointId = created.body.endpoint.id as string;

    const rotated = await server.rest("POST", `/webhook-endpoints/${endpointId}/rotate-secret`, keyed("rotate-1"));
    expect(rotated.status).toBe(200);
    shown.push(rotated.body.secret);
    await expectNoneStored();

    const viaTrpc = await trpcKeyed("create-2").webhookEndpoints.create.mutate(body);
    shown.push(viaTrpc.secret);
    await expectNoneStored();
    const rotatedViaTrpc = await trpcKeyed("rotate-2").webhookEndpoints.rotateSecret.mutate({ endpointId });
    shown.push(rotatedViaTrpc.secret);
    await expectNoneStored();
    expect(new Set(shown).size).toBe(4);

    // A repeat of a keyed call still gets the first answer, its secret included (it is the caller's own).
    const again = await server.rest("POST", "/webhook-endpoints", { ...keyed("create-1"), body });
    expect([again.status, again.headers.get("idempotent-replayed"), again.body]).toEqual([201, "true", created.body]);
    expect(await trpcKeyed("rotate-2").webhookEndpoints.rotateSecret.mutate({ endpointId })).toEqual(rotatedViaTrpc);
  });

  it("a kept answer whose key is no longer listed is not replayed: 409 outcome-unknown", async () => {
    const server = await started(startTestServer({ sealingKeys: [newKey()] }));
    const { token } = await server.newAccount();
    const keyed = { token, headers: { "idempotency-key": "create" }, body: { name: "Kept" } };
    expect((await server.rest("POST", "/customers", keyed)).status).toBe(201);

    const withOtherKey = await started(startTwinService(server, { sealingKeys: [newKey()] }));
    const repeat = await fetch(`${withOtherKey.url}/customers`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "idempotency-key": "create", "content-type": "application/json" },
      body: JSON.stringify(keyed.body),
    });
    expect([repeat.status, repeat.headers.get("idempotency-status")]).toEqual([409, "outcome-unknown"]);
  });
});
