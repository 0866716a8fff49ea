import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingAccount } from "./support/billing.js";
import { startTestServer, type TestServer } from "./support/server.js";
import { FAST, type Receiver, startReceiver, sweptSince } from "./support/webhook-receiver.js";

/**
 * A change of a contract logged but never applied (its process stopped between the two writes) is completed by the
 * next read; its webhook is then sent by the sweep, as the change would have sent it (docs/decisions.md, "Contract
 * lifecycle": the log is the truth).
 */
const failing = new Set<string>();
let server: TestServer;
let hooks: Receiver;

beforeAll(async () => {
  server = await startTestServer({
    webhooks: FAST,
    hooks: async (point, subject) => {
      if (point === "contracts.applyChange" && failing.delete(subject)) throw new Error("the process stopped");
    },
  });
  hooks = await startReceiver();
});
afterAll(async () => {
  await hooks.close();
  await server.close();
});

const platform = (price: number) => ({ displayName: "Platform", pricing: { type: "FLAT", price } });

describe("a change completed from the log", () => {
  it("is announced once, with the contract as changed, whether the sweep or a read completes it", async () => {
    const account = await billingAccount(server);
    const endpoint = await server.rest("POST", "/webhook-endpoints", {
      token: account.token,
      body: { url: hooks.url, eventTypes: ["contract.updated", "contract.terminated"] },
    });
    expect(endpoint.status).toBe(201);
    const verifier = new Webhook(endpoint.body.secret);
    const contract = () => account.contract({ startDate: "2024-04-01T00:00:00Z", products: [platform(100)] });
    const [amended, paused, terminated] = [await contract(), await contract(), await contract()];
    const stopped = async (contractId: string, method: "PATCH" | "POST", path: string, body: unknown) => {
      failing.add(contractId);
      const response = await server.rest(method, path, { token: account.token, body });
      expect(response.status).toBe(500);
    };
    // Nothing reads the amended contract: the sweep, reading the logged change, completes it.
    await stopped(amended.id, "PATCH", `/contracts/${amended.id}`, {
      products: [platform(160)],
      effectiveFrom: "2024-04-11T00:00:00Z",
    });
    // The paused and terminated ones are read at once: the read completes them, the sweep announces them.
    await stopped(paused.id, "PATCH", `/contracts/${paused.id}`, { status: "Inactive" });
    await stopped(terminated.id, "POST", `/contracts/${terminated.id}/terminate`, {});
    for (const { id } of [paused, terminated]) {
      expect((await server.rest("GET", `/contracts/${id}`, { token: account.token })).status).toBe(200);
    }
    await hooks.waitFor((received) => received.length >= 3);
    // A later sweep finds the same changes: it adds nothing (the endpoint still has its three deliveries).
    await sweptSince(new Date(), server);
    const deliveries = await server.rest("GET", `/webhook-endpoints/${endpoint.body.endpoint.id}/deliveries`, {
      token: account.token,
    });
    expect(deliveries.body.deliveries).toHaveLength(3);
    const events = hooks.received.map(
      (request) => verifier.verify(request.body, request.headers) as { type: string; data: any },
    );
    expect(events.map(({ type, data }) => [data.id, type]).sort()).toEqual(
      [
        [amended.id, "contract.updated"],
        [paused.id, "contract.updated"],
        [terminated.id, "contract.terminated"],
      ].sort(),
    );
    const dataOf = (id: string) => events.find(({ data }) => data.id === id)?.data;
    expect(dataOf(amended.id)).toMatchObject({ version: 2, products: [{ pricing: { price: 160 } }] });
    expect(dataOf(paused.id)).toMatchObject({ status: "Inactive" });
    expect(dataOf(terminated.id)).toMatchObject({ status: "Terminated" });
  });
});
