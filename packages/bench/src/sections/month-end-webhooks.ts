import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Api } from "../api.js";
import { formatCount, progress } from "../progress.js";
import { commandsOfCalls } from "../server.js";

/** How long the worker may take to deliver a month-end's messages once the loops ended. */
const DELIVERY_TIMEOUT_MS = 30 * 60_000;

/** The webhook worker's delivery of a month-end's `invoice.created` messages (issue 47: ≤ 3 commands a message). */
export interface MonthEndDeliveries {
  delivered: number;
  /** Invoices the messages were about: fewer than `delivered` would mean two messages for one invoice. */
  invoices: number;
  /** Messages that arrived again (at least once is legal; each is work done twice). */
  redeliveries: number;
  /** From the loops' end until the last message arrived. */
  msAfterLoops: number;
  /** The worker's database commands from the loops' start to the last arrival (`origin="webhooks"`). */
  commands: number;
}

/**
 * A local receiver answering 200, counting messages by webhook-id, behind an endpoint of the account that takes
 * `invoice.created` (the bench's server allows private networks). `delivered(expected)` waits until that many arrived.
 */
export async function listenForInvoices(api: Api, serverUrl: string) {
  const arrived = new Set<string>();
  const invoices = new Set<string>();
  let redeliveries = 0;
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const id = String(request.headers["webhook-id"]);
      if (arrived.has(id)) redeliveries += 1;
      arrived.add(id);
      try {
        invoices.add((JSON.parse(Buffer.concat(chunks).toString()) as { data: { id: string } }).data.id);
      } catch {
        invoices.add(`unreadable ${id}`);
      }
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/hooks`;
  await api.call("POST", "/webhook-endpoints", { url, eventTypes: ["invoice.created"] }, 201);
  const commandsBefore = await commandsOfCalls(serverUrl, "webhooks");
  return {
    async delivered(expected: number): Promise<MonthEndDeliveries> {
      const loopsEnded = performance.now();
      while (arrived.size < expected && performance.now() - loopsEnded < DELIVERY_TIMEOUT_MS) {
        progress(`billing runs: ${formatCount(arrived.size)} / ${formatCount(expected)} invoice.created delivered`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const msAfterLoops = performance.now() - loopsEnded;
      const commands = (await commandsOfCalls(serverUrl, "webhooks")) - commandsBefore;
      return { delivered: arrived.size, invoices: invoices.size, redeliveries, msAfterLoops, commands };
    },
    close: () =>
      new Promise<void>((resolve) => {
        receiver.close(() => resolve());
        receiver.closeAllConnections();
      }),
  };
}
