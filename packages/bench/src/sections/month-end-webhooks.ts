import type { Api } from "../api.js";
import { formatCount, progress } from "../progress.js";
import { commandsSent } from "../server.js";
import { startReceiver } from "../webhook-receiver.js";

/** How long the worker may take to deliver a month-end's messages once the loops ended. */
const DELIVERY_TIMEOUT_MS = 30 * 60_000;

/** The webhook worker's delivery of a month-end's `invoice.created` messages (issue 47: ≤ 3 commands a message). */
export interface MonthEndDeliveries {
  delivered: number;
  /** Invoices the messages were about: fewer than `delivered` would mean two messages for one invoice. */
  invoices: number;
  /** Messages that arrived again (at least once is legal; each is work done twice). */
  redeliveries: number;
  /** Messages whose body was no JSON message, or whose signature did not verify with the endpoint's secret. */
  unreadable: number;
  badSignatures: number;
  /** From the loops' end until the last message arrived. */
  msAfterLoops: number;
  /** The worker's database commands from the loops' start to the last arrival (`origin="webhooks"`). */
  commands: number;
}

/**
 * A local receiver (webhook-receiver.ts) behind an endpoint of the account that takes `invoice.created` (the bench's
 * server allows private networks). `delivered(expected)` waits until that many messages arrived.
 */
export async function listenForInvoices(api: Api, serverUrl: string) {
  const receiver = await startReceiver();
  const { secret } = await api.call<{ secret: string }>(
    "POST",
    "/webhook-endpoints",
    { url: receiver.url, eventTypes: ["invoice.created"] },
    201,
  );
  receiver.setSecret(secret);
  const commandsBefore = await commandsSent(serverUrl, "webhooks");
  return {
    async delivered(expected: number): Promise<MonthEndDeliveries> {
      const { arrivals, counts } = receiver;
      const loopsEnded = performance.now();
      while (arrivals.size < expected && performance.now() - loopsEnded < DELIVERY_TIMEOUT_MS) {
        progress(`billing runs: ${formatCount(arrivals.size)} / ${formatCount(expected)} invoice.created delivered`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const msAfterLoops = performance.now() - loopsEnded;
      const commands = (await commandsSent(serverUrl, "webhooks")) - commandsBefore;
      const invoices = new Set([...arrivals.values()].flatMap(({ dataId }) => (dataId ? [dataId] : []))).size;
      return { delivered: arrivals.size, invoices, ...counts, msAfterLoops, commands };
    },
    close: receiver.close,
  };
}
