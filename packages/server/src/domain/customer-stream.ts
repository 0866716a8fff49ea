import { createHash } from "node:crypto";
import type { CustomerStreamKind, CustomerStreamState } from "@billing/shared";

/** The kinds of a customer's state, in the order the stream sends them. */
export const STREAM_KINDS: readonly CustomerStreamKind[] = ["usage", "balances", "reservations", "invoices"];

/** What a cursor holds: a short digest of each kind's state as the client last received it. */
export type StreamDigests = Record<CustomerStreamKind, string>;

const digestOf = (value: unknown) =>
  createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 16);

/** The digests of a state: two states with the same digest of a kind show the same state of it. */
export const digestsOf = (state: CustomerStreamState): StreamDigests =>
  Object.fromEntries(STREAM_KINDS.map((kind) => [kind, digestOf(state[kind])])) as StreamDigests;

/**
 * An event's `id:`: the digests of every kind the client holds once it has this event, joined by `.` in STREAM_KINDS
 * order (e.g. `Ab3…Q.x9…T.r2…e.kk…0`; a cursor of another number of kinds, from before a kind was
 * added, is unreadable: a `reset`). A client reconnecting with it as `Last-Event-ID` is sent only the kinds whose state
 * differs now: states, not deltas, so nothing in between needs replaying and nothing is kept in memory.
 */
export const cursorOf = (digests: StreamDigests): string => STREAM_KINDS.map((kind) => digests[kind]).join(".");

/** The digests a `Last-Event-ID` names; undefined when it is absent or not a cursor (the client gets a `reset`). */
export function digestsOfCursor(cursor: string | undefined): StreamDigests | undefined {
  if (!cursor) return undefined;
  const parts = cursor.split(".");
  if (parts.length !== STREAM_KINDS.length || parts.some((part) => !/^[A-Za-z0-9_-]{16}$/.test(part))) return undefined;
  return Object.fromEntries(STREAM_KINDS.map((kind, index) => [kind, parts[index]])) as StreamDigests;
}

/** The kinds whose state differs between what the client holds and now, in STREAM_KINDS order. */
export const changedKinds = (held: StreamDigests, now: StreamDigests): CustomerStreamKind[] =>
  STREAM_KINDS.filter((kind) => held[kind] !== now[kind]);
