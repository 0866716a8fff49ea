import type { CustomerStreamKind, CustomerStreamState } from "@billing/shared";
import type { Transport } from "../transport.js";

/** One event of a customer's stream: the whole new state of one kind, or (`reset`) of all of them. */
export type CustomerStreamEvent =
  | { id: string; event: "reset"; data: CustomerStreamState }
  | { [K in CustomerStreamKind]: { id: string; event: K; data: CustomerStreamState[K] } }[CustomerStreamKind];

export interface CustomerStreamOptions {
  /** The `id` of the last event received: only the kinds that changed since are sent (else a `reset`). */
  lastEventId?: string;
  /** Ends the stream (the iterator returns). */
  signal?: AbortSignal;
}

/** The events of a `text/event-stream` body, as its blocks arrive (comments and `retry:` lines skipped). */
async function* eventsOf(body: ReadableStream<Uint8Array>): AsyncGenerator<CustomerStreamEvent> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const fields = new Map<string, string>();
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
      }
      const id = fields.get("id");
      const event = fields.get("event");
      const data = fields.get("data");
      if (id !== undefined && event !== undefined && data !== undefined)
        yield { id, event, data: JSON.parse(data) } as CustomerStreamEvent;
    }
  }
}

/**
 * `GET /customers/{customerId}/stream` as an async iterator: `for await (const { event, data, id } of
 * client.customers.stream(id))`. Reconnecting is the caller's: pass the last `id` seen as `lastEventId`.
 */
export function customerStream({ getRaw }: Transport) {
  return async function* stream(
    customerId: string,
    { lastEventId, signal }: CustomerStreamOptions = {},
  ): AsyncGenerator<CustomerStreamEvent> {
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal?.addEventListener("abort", abort, { once: true });
    try {
      const path = `/customers/${encodeURIComponent(customerId)}/stream`;
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
      const response = await getRaw(path, { signal: controller.signal, context: {} }, headers);
      if (!response.body) return;
      try {
        yield* eventsOf(response.body);
      } catch (error) {
        if (!controller.signal.aborted) throw error;
      }
    } finally {
      signal?.removeEventListener("abort", abort);
      controller.abort();
    }
  };
}
