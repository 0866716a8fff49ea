import type { IncomingMessage, ServerResponse } from "node:http";
import type { CustomerStreamKind, CustomerStreamState } from "@billing/shared";
import type { OpenAPIObject } from "trpc-to-openapi";
import type { Context } from "../context.js";
import {
  changedKinds,
  cursorOf,
  digestsOf,
  digestsOfCursor,
  STREAM_KINDS,
  type StreamDigests,
} from "../domain/customer-stream.js";
import { DomainError } from "../domain/errors.js";
import { statusOf, toErrorBody } from "../error-body.js";
import type { StreamLease } from "../repositories/stream-leases.js";
import { customerStreamRouter } from "../routers/customer-stream.js";
import { rawGetParamOf, siblingGetOf } from "./raw-routes.js";

/** How a customer stream works: its polling, its heartbeats and how many an account may hold open. */
export interface CustomerStreamSettings {
  /** How often each connection reads its customer's state (an event within this of a change stored). */
  pollMs: number;
  /** The longest silence: a comment line then, so proxies and clients keep the connection. */
  heartbeatMs: number;
  /** Connections one account may hold open across every instance (a lease each); more are 429. */
  maxPerAccount: number;
  /** How long a connection's lease lasts unrenewed (renewed at a third of it): an instance gone frees it then. */
  leaseMs: number;
}

export const DEFAULT_CUSTOMER_STREAM: CustomerStreamSettings = {
  pollMs: 500,
  heartbeatMs: 15_000,
  maxPerAccount: 5,
  leaseMs: 30_000,
};

const PATTERN = /^\/customers\/([^/]+)\/stream\/?$/i;

/** The customer id of a `GET /customers/{customerId}/stream` path, decoded; undefined for any other path. */
export const customerStreamRequestOf = (method: string | undefined, path: string): string | undefined =>
  rawGetParamOf(PATTERN, method, path);

/** One event of the stream as OpenAPI describes Server-Sent Events: its fields, `data` the kind's JSON state. */
const STREAM_EVENT = {
  type: "object",
  properties: {
    id: { type: "string", description: "The cursor of the state the client holds: send it back as Last-Event-ID." },
    event: { type: "string", enum: [...STREAM_KINDS, "reset"] },
    data: { type: "string", description: "The kind's whole state as JSON (`reset`: every kind)." },
    retry: { type: "integer", minimum: 0 },
  },
  required: ["data"],
};

/** Adds the route to the OpenAPI document (REST only: tRPC has no Server-Sent Events for REST clients). */
export function documentCustomerStreamRoute(document: OpenAPIObject) {
  document.paths ??= {};
  const { parameters, security, errors } = siblingGetOf(document, "/customers/{customerId}/entitlements");
  const summary = "The customer's usage, credit balance, open reservations and invoices, live (Server-Sent Events)";
  document.paths["/customers/{customerId}/stream"] = {
    get: structuredClone({
      operationId: "customers-stream",
      summary,
      description:
        "`text/event-stream`, REST only (no tRPC procedure). Each event is the whole new state of one kind, never a " +
        "delta: `usage` (as GET /customers/{customerId}/entitlements), `balances` (as GET /credits/balance's " +
        "`balances`), `reservations` (the open ones, the first 100 to expire: id, meterKey or currency, amount, " +
        "expiresAt; a settled or expired one leaves it), `invoices` (the first 100, oldest first: id, number, " +
        "status, billingStatus, amount, amountDue); `reset` carries all four (`CustomerStreamState`). Read from the " +
        "database every 500 ms by the instance holding the connection, so a change stored by any instance is sent " +
        "within a second. Each event's " +
        "`id:` is a cursor of the state the client holds: reconnect with it as `Last-Event-ID` to be sent only what " +
        "changed since (an absent or unreadable one gets a `reset`). A comment line every 15 s of silence. At most 5 " +
        "open per account, across every instance: more are 429. Read scope.",
      tags: ["customers"],
      security,
      parameters: [
        ...(parameters ?? []),
        {
          name: "Last-Event-ID",
          in: "header",
          required: false,
          description: "The `id:` of the last event received: only the kinds that changed since are sent.",
          schema: { type: "string" },
        },
      ],
      responses: {
        "200": {
          description: summary,
          content: { "text/event-stream": { schema: STREAM_EVENT } },
        },
        "429": { description: "The account holds its most open streams (5, across instances)." },
        ...errors,
      },
    }),
  };
}

const sendError = (res: ServerResponse, error: unknown) => {
  const body = toErrorBody(error);
  const payload = JSON.stringify(body);
  res.writeHead(statusOf(body), { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
  res.end(payload);
};

/** One SSE event: `id:`, `event:` and its JSON on one `data:` line. */
const eventText = (id: string, event: string, data: unknown) =>
  `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The customer streams of one instance (docs/decisions.md, "The customer stream"): each connection is authenticated
 * once (`customerStreamRouter.open`), then reads its customer's state every `pollMs` and sends the kinds whose state
 * changed since what the client holds (its cursor, the digests of the states sent). Nothing is kept between
 * connections: a reconnection anywhere resumes from its `Last-Event-ID`.
 */
export function customerStreams(settings: CustomerStreamSettings) {
  return async function serve(req: IncomingMessage, res: ServerResponse, context: Context, customerId: string) {
    let opened: Awaited<ReturnType<ReturnType<typeof customerStreamRouter.createCaller>["open"]>>;
    try {
      opened = await customerStreamRouter.createCaller(context).open({ customerId });
    } catch (error) {
      if (toErrorBody(error).code === "INTERNAL_SERVER_ERROR") context.trace.log.error({ err: error }, "stream failed");
      return sendError(res, error);
    }
    const { accountId } = opened;
    const { streamLeases } = context.repositories;
    let lease: StreamLease | undefined;
    try {
      lease = await streamLeases.take(accountId, settings.maxPerAccount, settings.leaseMs);
    } catch (error) {
      context.trace.log.error({ err: error, accountId }, "stream lease failed");
      return sendError(res, error);
    }
    if (!lease) {
      const message = `The account already holds ${settings.maxPerAccount} open streams`;
      return sendError(res, new DomainError("TOO_MANY_REQUESTS", message));
    }
    const place = lease;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    const end = () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      streamLeases.release(place).catch((error) => {
        // Expires unrenewed, then is taken over.
        context.trace.log.error({ err: error, accountId }, "stream lease release failed");
      });
    };
    res.on("close", end);
    // Gone while its lease was taken: its close came before the listener.
    if (req.socket.destroyed) return end();
    let renewedAt = Date.now();
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "private, no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    res.write("retry: 1000\n\n");
    let lastWrite = Date.now();
    const write = (text: string) => {
      res.write(text);
      lastWrite = Date.now();
    };

    // What the client holds: its cursor's digests, or nothing (then a reset with the whole state).
    let held: StreamDigests | undefined = digestsOfCursor(req.headers["last-event-id"]?.toString());
    const send = (state: CustomerStreamState) => {
      const now = digestsOf(state);
      if (!held) {
        write(eventText(cursorOf(now), "reset", state));
        held = now;
        return;
      }
      for (const kind of changedKinds(held, now) as CustomerStreamKind[]) {
        held = { ...held, [kind]: now[kind] };
        write(eventText(cursorOf(held), kind, state[kind]));
      }
    };
    send(opened.first);

    const tick = async () => {
      if (closed) return;
      try {
        if (Date.now() - renewedAt >= settings.leaseMs / 3) {
          // A lease taken over (this instance was too slow to renew it) ends the connection: the client reconnects.
          if (!(await streamLeases.renew(place, settings.leaseMs))) {
            res.end();
            return;
          }
          renewedAt = Date.now();
        }
        send(await opened.state());
        if (Date.now() - lastWrite >= settings.heartbeatMs) write(": heartbeat\n\n");
      } catch (error) {
        context.trace.log.error({ err: error, accountId }, "customer stream read failed; the client reconnects");
        res.end();
        return;
      }
      if (!closed) timer = setTimeout(tick, settings.pollMs);
    };
    timer = setTimeout(tick, settings.pollMs);
  };
}
