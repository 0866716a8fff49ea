import { bearerToken, hashToken } from "../auth/tokens.js";
import type { CallSlots, Slots } from "../context.js";
import { DomainError } from "../domain/errors.js";
import type { ServiceMetrics } from "../observability/metrics.js";
import type { Hooks } from "../repositories/hooks.js";
import { t } from "../trpc.js";
import { accountMiddleware } from "./authenticate.js";
import { refusalOfSpentAllowance } from "./rate-limit.js";
import { createSpentAllowances } from "./spent-allowances.js";

/** How many calls one token and one account may have running at once on an instance, and how long others wait. */
export interface CallLimits {
  perToken: number;
  perAccount: number;
  /**
   * Calls of all accounts running at once on the instance. When they are all taken, a freed slot goes to the waiting
   * account with the fewest calls running, accounts taking turns on ties: an account over its share waits while
   * another waits.
   */
  perInstance: number;
  /** Calls of one token, and of one account, that may wait for a slot; past it, 429 at once. */
  queued: number;
  /** How long a call waits for a slot before it is answered 429. */
  queueMs: number;
  /**
   * While another account is active on the instance (it has a call running or waiting, or had one end within
   * `activeWindowMs`), an account runs at most `perAccount` calls at once (its others wait in its line): calls of
   * one account running at once only take CPU from the others'. Alone, an account runs up to `CallLimits.perAccount`.
   * Without it, an account's limit does not depend on the others.
   */
  whileShared?: { perAccount: number; activeWindowMs: number };
}

/** Whose slots: a token's (taken before authentication, so that a refusal costs no database read) or an account's. */
export type SlotKind = "token" | "account";

interface Waiter {
  start(): void;
}

interface KeySlots {
  running: number;
  /** The key's own line: first come, first served. */
  waiting: Waiter[];
}

/**
 * How long after its last call ends an account still counts as active for `whileShared`: a client making one call
 * after another leaves a gap of a moment between them, in which a busy account must not take back its slots.
 */
export const ACTIVE_ACCOUNT_WINDOW_MS = 1000;

/** Retry-After of a refused call: slots free as calls end, which takes a moment, not a window. */
export const RETRY_AFTER_SECONDS = 1;

const clientGoneError = () => new DomainError("BAD_REQUEST", "The client closed the request before its call started");

/**
 * The slots of one kind on this instance: at most `limit` calls of a key (`shared.perAccount` while another key is
 * active), and `capacity` calls of all keys, run at once. `enter` resolves with the function that frees the slot once
 * the call is done; it waits in the key's line while the key or the instance is full, and refuses (429) when `queued`
 * calls of the key already wait or the wait reaches `queueMs`. A waiting call whose client has gone leaves the line
 * without running.
 *
 * Keys waiting for the shared capacity (below their own limit) are served by weighted fair queueing: a freed slot
 * goes to the one with the fewest calls running, the longest unserved first among equals (a round-robin over the
 * keys' lines, not first come first served over all calls), so a key running many calls yields to one running few.
 */
export function createSlots(
  kind: SlotKind,
  { limit, capacity, shared }: { limit: number; capacity: number; shared?: CallLimits["whileShared"] },
  limits: CallLimits,
  { hooks, metrics, now = Date.now }: { hooks: Hooks; metrics?: ServiceMetrics; now?: () => number },
): Slots {
  const keys = new Map<string, KeySlots>();
  /** Keys with nothing running or waiting, by when their last call ended, oldest first (for `whileShared`). */
  const recentlyEnded = new Map<string, number>();
  /** Keys whose first waiter waits for the shared capacity only, in turn order (the last served last). */
  const turns = new Map<string, KeySlots>();
  let runningOfAll = 0;
  const refusal = (why: string) => new DomainError("TOO_MANY_REQUESTS", `${why}; retry in ${RETRY_AFTER_SECONDS} s`);
  const full = `this ${kind} (${limit})${Number.isFinite(capacity) ? ` or on this instance (${capacity})` : ""}`;

  /** Whether a key other than `key` is active: it has calls running or waiting, or had one end within the window. */
  const othersActive = (key: string) => {
    if (keys.size > (keys.has(key) ? 1 : 0)) return true;
    if (!shared) return false;
    const since = now() - shared.activeWindowMs;
    for (const [ended, at] of recentlyEnded) {
      if (at >= since) break;
      recentlyEnded.delete(ended);
    }
    return recentlyEnded.size > (recentlyEnded.has(key) ? 1 : 0);
  };

  /** How many calls `key` may run at once now. */
  const limitOf = (key: string) => (shared && othersActive(key) ? Math.min(limit, shared.perAccount) : limit);

  const startNext = (slots: KeySlots) => {
    const next = slots.waiting.shift();
    if (!next) return;
    slots.running += 1;
    runningOfAll += 1;
    next.start();
  };

  /**
   * Whose turn it is: among keys waiting for the capacity, the fewest running, then the longest unserved. A key that
   * another's activity has put at its shared limit since it joined the turns leaves them.
   */
  const nextInTurn = (): [string, KeySlots] | undefined => {
    let chosen: [string, KeySlots] | undefined;
    for (const entry of turns) {
      if (entry[1].running >= limitOf(entry[0])) turns.delete(entry[0]);
      else if (!chosen || entry[1].running < chosen[1].running) chosen = entry;
    }
    return chosen;
  };

  /** Puts `key` in the turns (at the end) or out of them, as it now stands: after each change of its calls. */
  const settle = (key: string, slots: KeySlots) => {
    const waitsForCapacity = slots.waiting.length > 0 && slots.running < limitOf(key);
    if (!waitsForCapacity) turns.delete(key);
    else if (!turns.has(key)) turns.set(key, slots);
    if (slots.running === 0 && slots.waiting.length === 0) {
      keys.delete(key);
      if (shared) {
        // Re-inserted, so that the map stays in order of ending.
        recentlyEnded.delete(key);
        recentlyEnded.set(key, now());
      }
    }
  };

  const release = (key: string, slots: KeySlots) => {
    slots.running -= 1;
    runningOfAll -= 1;
    // Its own next call takes its turn like any other: the freed slot may go to a key running fewer.
    settle(key, slots);
    for (let turn = nextInTurn(); turn && runningOfAll < capacity; turn = nextInTurn()) {
      const [servedKey, served] = turn;
      startNext(served);
      // Served: its next turn comes after every other key's.
      turns.delete(servedKey);
      settle(servedKey, served);
    }
  };

  /** The refusal a call of `key` meets at once, before any wait: every slot taken and the line full. */
  const refusalOf = (key: string): DomainError | undefined => {
    const slots = keys.get(key);
    if (!slots || (slots.running < limitOf(key) && runningOfAll < capacity) || slots.waiting.length < limits.queued) {
      return undefined;
    }
    return refusal(`Too many calls in flight for ${full}, and ${limits.queued} already wait`);
  };

  return {
    refusalOf,
    async enter(key: string, clientGone: AbortSignal): Promise<() => void> {
      // The client may have gone while the call waited for another kind's slot.
      if (clientGone.aborted) throw clientGoneError();
      let slots = keys.get(key);
      if (!slots) {
        slots = { running: 0, waiting: [] };
        keys.set(key, slots);
      }
      const own = slots;
      const leave = () => release(key, own);
      // While the capacity has room, nobody waits for it: a call within its key's limit runs at once.
      if (own.running < limitOf(key) && runningOfAll < capacity) {
        own.running += 1;
        runningOfAll += 1;
        return leave;
      }
      const lineFull = refusalOf(key);
      if (lineFull) throw lineFull;
      const turn = new Promise<void>((resolve, reject) => {
        const stopWaiting = () => {
          clearTimeout(timer);
          clientGone.removeEventListener("abort", onClientGone);
          metrics?.callsWaiting.dec({ kind });
        };
        const leaveLine = (error: DomainError) => {
          stopWaiting();
          own.waiting.splice(own.waiting.indexOf(waiter), 1);
          settle(key, own);
          reject(error);
        };
        // `startNext` counts the slot as taken before starting the waiter.
        const waiter: Waiter = {
          start() {
            stopWaiting();
            resolve();
          },
        };
        const onClientGone = () => {
          leaveLine(clientGoneError());
          void hooks("calls.dropped", kind);
        };
        const timer = setTimeout(() => {
          leaveLine(refusal(`Too many calls in flight for ${full}; this one waited ${limits.queueMs} ms`));
        }, limits.queueMs);
        clientGone.addEventListener("abort", onClientGone, { once: true });
        metrics?.callsWaiting.inc({ kind });
        own.waiting.push(waiter);
        settle(key, own);
      });
      await Promise.all([turn, hooks("calls.queued", kind)]);
      return leave;
    },
  };
}

/** The token and account slots of an instance, and the allowances it saw spent (refused before authentication). */
export const createCallSlots = (limits: CallLimits, hooks: Hooks, metrics: ServiceMetrics): CallSlots => ({
  // Tokens share no capacity of their own: their account's slots and the instance's bound them together.
  token: createSlots("token", { limit: limits.perToken, capacity: Number.POSITIVE_INFINITY }, limits, {
    hooks,
    metrics,
  }),
  account: createSlots(
    "account",
    { limit: limits.perAccount, capacity: limits.perInstance, shared: limits.whileShared },
    limits,
    { hooks, metrics },
  ),
  spentAllowances: createSpentAllowances(),
});

/** Runs `next` holding a slot of `key`; 429 with `Retry-After` when none frees in time. */
async function holdingSlot<T>(
  slots: Slots,
  key: string,
  ctx: { clientGone: AbortSignal; setHeader: (name: string, value: string) => void; metrics: ServiceMetrics },
  next: () => Promise<T>,
): Promise<T> {
  let leave: () => void;
  try {
    leave = await slots.enter(key, ctx.clientGone);
  } catch (error) {
    if (error instanceof DomainError && error.code === "TOO_MANY_REQUESTS") {
      ctx.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
      ctx.metrics.callsRefused.inc({ reason: "slots" });
    }
    throw error;
  }
  try {
    return await next();
  } finally {
    leave();
  }
}

/**
 * Before authentication: a call whose client has already gone does not start, a call whose token's allowance this
 * instance saw spent gets its 429 at once, and each call holds a slot of the token it presents (keyed by the token's
 * hash: no database read, so a flood of refused calls costs the others nothing). A missing or malformed token goes
 * straight on to its 401.
 */
export const limitTokenCalls = t.middleware(({ ctx, meta, next }) => {
  if (ctx.clientGone.aborted) throw clientGoneError();
  const token = bearerToken(ctx.authorization);
  if (!ctx.callSlots || !token) return next();
  const tokenHash = hashToken(token);
  const spent = refusalOfSpentAllowance(ctx, ctx.callSlots.spentAllowances, tokenHash, meta?.rateLimit ?? "api");
  if (spent) {
    ctx.metrics.callsRefused.inc({ reason: "rate_limit" });
    throw spent;
  }
  return holdingSlot(ctx.callSlots.token, tokenHash, ctx, next);
});

/** After authentication: each call also holds a slot of its account, so that many tokens cannot fill the server. */
export const limitAccountCalls = accountMiddleware(({ ctx, next }) => {
  if (!ctx.callSlots) return next();
  return holdingSlot(ctx.callSlots.account, ctx.holder.accountId, ctx, next);
});
