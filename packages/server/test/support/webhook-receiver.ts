import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { WebhookSettings } from "../../src/services/webhook-worker.js";
import type { TestServer } from "./server.js";

/**
 * Retries 200 ms apart, a worker that looks every 50 ms and sweeps every 200 ms the changes older than 2 s: a webhook
 * test runs in seconds, and a loaded machine's slow request still records its own changes.
 */
export const FAST: WebhookSettings = {
  retrySchedule: [0.2, 0.2],
  allowPrivateNetworks: true,
  pollIntervalMs: 50,
  sweepIntervalMs: 200,
  sweepMinAgeMs: 2_000,
  timeoutMs: 5_000,
};

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What the receiver answers to the n-th request (0-based): a status, or a promise of one (to hold the request). */
export type Answer = (request: ReceivedWebhook, index: number) => number | Promise<number>;

/** A real HTTP receiver on loopback, on a free port, recording every request and every TCP connection. */
export async function startReceiver(answer: Answer = () => 204) {
  const received: ReceivedWebhook[] = [];
  let connections = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
    const request = { headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
    received.push(request);
    const status = await answer(request, received.length - 1);
    if (!res.destroyed) res.writeHead(status).end();
  });
  server.on("connection", () => (connections += 1));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    connections: () => connections,
    /** Resolves once `done(received)` holds; fails after `timeoutMs`. */
    async waitFor(done: (received: ReceivedWebhook[]) => boolean, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(received)) {
        if (Date.now() > deadline)
          throw new Error(`the receiver did not get what was expected; got ${received.length} requests`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The event type of a received webhook. */
export const typeOf = (request: ReceivedWebhook) => (JSON.parse(request.body) as { type: string }).type;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once a whole sweep of the delivery worker has covered every change made before `since` (the last source a
 * sweep reads is `invoices`): any message a sweep would record of them is recorded, so what is absent then stays
 * absent. Absence proven without sleeping.
 */
export async function sweptSince(since: Date, on: Pick<TestServer, "service">) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mark = await on.service.repositories.webhookMessages.sweepMark("invoices");
    if (mark && mark >= since) return;
    if (Date.now() > deadline)
      throw new Error(`no sweep ended after ${since.toISOString()}; mark ${mark?.toISOString()}`);
    await sleep(20);
  }
}
