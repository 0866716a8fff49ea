import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { now } from "./stats.js";

/** A webhook endpoint's far end for the sections that count deliveries (9 and 13's `--webhooks`). */

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

/** The Standard Webhooks check a receiver makes: one of the `v1,` signatures is the HMAC of `id.timestamp.body`. */
function signatureVerifies(secret: string, request: IncomingMessage, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signed = `${request.headers["webhook-id"]}.${request.headers["webhook-timestamp"]}.${body}`;
  const expected = Buffer.from(createHmac("sha256", key).update(signed).digest("base64"));
  return String(request.headers["webhook-signature"] ?? "")
    .split(" ")
    .map((signature) => Buffer.from(signature.replace(/^v1,/, "")))
    .some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
}

/**
 * A local receiver answering 200 to everything, recording when each message first arrived (by webhook-id) and the id
 * of what it is about (`data.id`: a customer, an invoice); a body that is no JSON message is counted (`unreadable`),
 * its arrival recorded without an id. The secret is set once the endpoint exists.
 */
export async function startReceiver() {
  const arrivals = new Map<string, { at: number; dataId: string | undefined }>();
  const counts = { redeliveries: 0, badSignatures: 0, unreadable: 0 };
  const dataIdOf = (body: string) => {
    try {
      return (JSON.parse(body) as { data: { id: string } }).data.id;
    } catch {
      counts.unreadable += 1;
      return undefined;
    }
  };
  let secret = "";
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const at = now();
      if (!signatureVerifies(secret, request, body)) counts.badSignatures += 1;
      const webhookId = String(request.headers["webhook-id"]);
      if (arrivals.has(webhookId)) counts.redeliveries += 1;
      else arrivals.set(webhookId, { at, dataId: dataIdOf(body) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    counts,
    setSecret: (value: string) => {
      secret = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the worker's kept-alive connections would hold close() open
      }),
  };
}
