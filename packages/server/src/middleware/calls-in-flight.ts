import { bearerToken, hashToken } from "../auth/tokens.js";
import { t } from "../context.js";
import { DomainError } from "../domain/errors.js";
import type { Hooks } from "../repositories/hooks.js";
import { accountMiddleware } from "./authenticate.js";

/** How many calls one token and one account may have running at once on an instance, and how long others wait. */
export interface CallLimits {
  perToken: number;
  perAccount: number;
  /** Calls of one token, and of one account, that may wait for a slot; past it, 429 at once. */
  queued: number;
  /** How long a call waits for a slot before it is answered 429. */
  queueMs: number;
}

/** Whose slots: a token's (taken before authentication, so that a refusal costs no database read) or an account's. */
export type SlotKind = "token" | "account";

interface Waiter {
  start(): void;
}

interface KeySlots {
  running: number;
  /** First come, first served. */
  waiting: Waiter[];
}

/** Retry-After of a refused call: slots free as calls end, which takes a moment, not a window. */
export const RETRY_AFTER_SECONDS = 1;

const clientGoneError = () => new DomainError("BAD_REQUEST", "The client closed the request before its call started");

/**
 * The slots of one kind on this instance: at most `limit` calls of a key run at once. `enter` resolves with the
 * function that frees the slot once the call is done; it waits in the key's line while the key is full, and refuses
 * (429) when `queued` calls already wait or the wait reaches `queueMs`. A waiting call whose client has gone leaves
 * the line without running.
 */
export function createSlots(kind: SlotKind, limit: number, limits: CallLimits, hooks: Hooks) {
  const keys = new Map<string, KeySlots>();
  const refusal = (why: string) => new DomainError("TOO_MANY_REQUESTS", `${why}; retry in ${RETRY_AFTER_SECONDS} s`);

  const release = (key: string, slots: KeySlots) => {
    const next = slots.waiting.shift();
    if (next) return next.start();
    slots.running -= 1;
    if (slots.running === 0) keys.delete(key);
  };

  /** The refusal a call of `key` meets at once, before any wait: every slot taken and the line full. */
  const refusalOf = (key: string): DomainError | undefined => {
    const slots = keys.get(key);
    if (!slots || slots.running < limit || slots.waiting.length < limits.queued) return undefined;
    return refusal(`Too many calls in flight for this ${kind} (${limit}), and ${limits.queued} already wait`);
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
      if (own.running < limit) {
        own.running += 1;
        return leave;
      }
      const lineFull = refusalOf(key);
      if (lineFull) throw lineFull;
      const turn = new Promise<void>((resolve, reject) => {
        const stopWaiting = () => {
          clearTimeout(timer);
          clientGone.removeEventListener("abort", onClientGone);
        };
        const leaveLine = (error: DomainError) => {
          stopWaiting();
          own.waiting.splice(own.waiting.indexOf(waiter), 1);
          reject(error);
        };
        // The slot passes from the call that frees it to this one: `running` stays as it is.
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
          leaveLine(
            refusal(`Too many calls in flight for this ${kind} (${limit}); this one waited ${limits.queueMs} ms`),
          );
        }, limits.queueMs);
        clientGone.addEventListener("abort", onClientGone, { once: true });
        own.waiting.push(waiter);
      });
      await Promise.all([turn, hooks("calls.queued", kind)]);
      return leave;
    },
  };
}

export type Slots = ReturnType<typeof createSlots>;

/** The token and account slots of an instance. */
export const createCallSlots = (limits: CallLimits, hooks: Hooks) => ({
  token: createSlots("token", limits.perToken, limits, hooks),
  account: createSlots("account", limits.perAccount, limits, hooks),
});

export type CallSlots = ReturnType<typeof createCallSlots>;

/** Runs `next` holding a slot of `key`; 429 with `Retry-After` when none frees in time. */
async function holdingSlot<T>(
  slots: Slots,
  key: string,
  ctx: { clientGone: AbortSignal; setHeader: (name: string, value: string) => void },
  next: () => Promise<T>,
): Promise<T> {
  let leave: () => void;
  try {
    leave = await slots.enter(key, ctx.clientGone);
  } catch (error) {
    if (error instanceof DomainError && error.code === "TOO_MANY_REQUESTS") {
      ctx.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
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
 * Before authentication: a call whose client has already gone does not start, and each call holds a slot of the
 * token it presents (keyed by the token's hash: no database read, so a flood of refused calls costs the others
 * nothing). A missing or malformed token goes straight on to its 401.
 */
export const limitTokenCalls = t.middleware(({ ctx, next }) => {
  if (ctx.clientGone.aborted) throw clientGoneError();
  const token = bearerToken(ctx.authorization);
  if (!ctx.callSlots || !token) return next();
  return holdingSlot(ctx.callSlots.token, hashToken(token), ctx, next);
});

/** After authentication: each call also holds a slot of its account, so that many tokens cannot fill the server. */
export const limitAccountCalls = accountMiddleware(({ ctx, next }) => {
  if (!ctx.callSlots) return next();
  return holdingSlot(ctx.callSlots.account, ctx.holder.accountId, ctx, next);
});
