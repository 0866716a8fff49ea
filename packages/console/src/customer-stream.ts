import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { type Outputs, serviceRoot } from "./api.js";
import { useSession } from "./session-context.js";

type Reservation = Outputs["reservations"]["get"]["reservation"];
type Invoice = Outputs["invoices"]["list"]["invoices"][number];

/** A customer's live state as `GET /customers/{customerId}/stream` sends it (the server's `CustomerStreamState`). */
export interface StreamedState {
  usage: Outputs["entitlements"]["list"]["entitlements"];
  balances: Outputs["credits"]["balance"]["balances"];
  reservations: Pick<Reservation, "id" | "meterKey" | "currency" | "amount" | "expiresAt">[];
  invoices: Pick<Invoice, "id" | "number" | "status" | "billingStatus" | "amount" | "amountDue">[];
}
export type StreamKind = keyof StreamedState;

interface StreamEvent {
  id: string;
  event: StreamKind | "reset";
  data: unknown;
}

/** One block of a `text/event-stream` body (lines up to a blank one): its event, or undefined (a comment, `retry:`). */
export function eventOfBlock(block: string): StreamEvent | undefined {
  const fields = new Map<string, string>();
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
  }
  const [id, event, data] = [fields.get("id"), fields.get("event"), fields.get("data")];
  if (id === undefined || event === undefined || data === undefined) return undefined;
  return { id, event: event as StreamEvent["event"], data: JSON.parse(data) };
}

/** How long after a connection ends (or is refused) the next is made. */
const RECONNECT_MS = 1_000;
const REFUSED_RECONNECT_MS = 10_000;

/** The console's queries each kind's change makes stale: their panels read them again. */
const STALE_QUERIES: Record<StreamKind, (customerId: string) => unknown[][]> = {
  usage: (customerId) => [["usage", customerId]],
  balances: (customerId) => [
    ["credit-balance", customerId],
    ["credit-ledger", customerId],
  ],
  reservations: () => [],
  invoices: (customerId) => [["invoices", customerId]],
};

/**
 * The customer's state, live: the stream read with `fetch` (an EventSource cannot send the session's bearer token),
 * reconnected after it ends with the last event's id as `Last-Event-ID` (only what changed meanwhile is sent), until
 * the page leaves. Each change also marks the page's other panels' queries of that kind stale, so they follow.
 */
export function useCustomerStream(customerId: string): { state: StreamedState | undefined; live: boolean } {
  const { token } = useSession();
  const queryClient = useQueryClient();
  const [state, setState] = useState<StreamedState>();
  const [live, setLive] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let lastId: string | undefined;
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    const apply = ({ id, event, data }: StreamEvent) => {
      lastId = id;
      if (event === "reset") setState(data as StreamedState);
      else {
        setState((held) => held && { ...held, [event]: data });
        for (const queryKey of STALE_QUERIES[event]?.(customerId) ?? []) queryClient.invalidateQueries({ queryKey });
      }
    };

    /** One connection, read to its end: false when it was refused. */
    async function connection(): Promise<boolean> {
      const response = await fetch(`${serviceRoot()}/customers/${encodeURIComponent(customerId)}/stream`, {
        headers: { authorization: `Bearer ${token}`, ...(lastId && { "last-event-id": lastId }) },
        signal,
      });
      if (!response.ok || !response.body) return false;
      setLive(true);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return true;
        buffered += value;
        for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
          const event = eventOfBlock(buffered.slice(0, end));
          buffered = buffered.slice(end + 2);
          if (event) apply(event);
        }
      }
    }

    (async () => {
      while (!signal.aborted) {
        const ended = await connection().catch(() => true);
        setLive(false);
        if (!signal.aborted) await pause(ended ? RECONNECT_MS : REFUSED_RECONNECT_MS);
      }
    })();
    return () => controller.abort();
  }, [customerId, token, queryClient]);

  return { state, live };
}
