import { DomainError } from "../domain/errors.js";
import type { Hooks } from "../repositories/hooks.js";
import { accountMiddleware } from "./authenticate.js";

/** How many calls one token and one account may have running at once on an instance, and how long others wait. */
export interface CallLimits {
  perToken: number;
  perAccount: number;
  /** Calls of one account waiting for a slot; past it, 429 at once. */
  queuedPerAccount: number;
  /** How long a call waits for a slot before it is answered 429. */
  queueMs: number;
}

interface Waiter {
  tokenId: string;
  start(): void;
  refuse(error: DomainError): void;
}

interface AccountCalls {
  running: number;
  runningByToken: Map<string, number>;
  /** First come, first served, each as soon as its token and its account have room. */
  waiting: Waiter[];
}

/** What a call waiting for a slot needs to know of its request: whether its client has gone. */
export interface CallEntry {
  accountId: string;
  tokenId: string;
  clientGone: AbortSignal;
}

/** Whether one more call of `tokenId` fits in the account's slots. */
export const hasRoom = (calls: AccountCalls, tokenId: string, limits: CallLimits) =>
  calls.running < limits.perAccount && (calls.runningByToken.get(tokenId) ?? 0) < limits.perToken;

/** Retry-After of a refused call: slots free as calls finish, which takes a moment, not a window. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The slots of every account on this instance. `enter` resolves with the function that frees the slot once the call
 * is done; it waits in the account's queue while the token or the account is full, and refuses (429) when the queue
 * is full or the wait reaches `queueMs`. A waiting call whose client has gone leaves the queue without running.
 */
export function createCallGate(limits: CallLimits, hooks: Hooks) {
  const accounts = new Map<string, AccountCalls>();

  const take = (calls: AccountCalls, tokenId: string) => {
    calls.running += 1;
    calls.runningByToken.set(tokenId, (calls.runningByToken.get(tokenId) ?? 0) + 1);
  };

  const release = (accountId: string, calls: AccountCalls, tokenId: string) => {
    calls.running -= 1;
    const left = (calls.runningByToken.get(tokenId) ?? 1) - 1;
    if (left === 0) calls.runningByToken.delete(tokenId);
    else calls.runningByToken.set(tokenId, left);
    for (const waiter of [...calls.waiting]) {
      if (!hasRoom(calls, waiter.tokenId, limits)) continue;
      take(calls, waiter.tokenId);
      waiter.start();
    }
    if (calls.running === 0 && calls.waiting.length === 0) accounts.delete(accountId);
  };

  const refusal = (why: string) => new DomainError("TOO_MANY_REQUESTS", `${why}; retry in ${RETRY_AFTER_SECONDS} s`);

  return {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
    async enter({ accountId, tokenId, clientGone }: CallEntry): Promise<() => void> {
      let calls = accounts.get(accountId);
      if (!calls) {
        calls = { running: 0, runningByToken: new Map(), waiting: [] };
        accounts.set(accountId, calls);
      }
      const own = calls;
      const leave = () => release(accountId, own, tokenId);
      // A waiting call never has room (each release starts every waiting call that fits), so this one is not ahead.
      if (hasRoom(own, tokenId, limits)) {
        take(own, tokenId);
        return leave;
      }
      if (own.waiting.length >= limits.queuedPerAccount) {
        throw refusal(`Too many calls in flight for this account: ${limits.queuedPerAccount} already wait`);
      }
      const turn = new Promise<void>((resolve, reject) => {
        const stopWaiting = () => {
          clearTimeout(timer);
          clientGone.removeEventListener("abort", onClientGone);
          own.waiting.splice(own.waiting.indexOf(waiter), 1);
        };
        const waiter: Waiter = {
          tokenId,
          start() {
            stopWaiting();
            resolve();
          },
          refuse(error) {
            stopWaiting();
            if (own.running === 0 && own.waiting.length === 0) accounts.delete(accountId);
            reject(error);
          },
        };
        const onClientGone = () => {
          waiter.refuse(new DomainError("BAD_REQUEST", "The client closed the request before its call started"));
          void hooks("calls.dropped", accountId);
        };
        const timer = setTimeout(() => {
          const limit = `${limits.perToken} per token, ${limits.perAccount} per account`;
          waiter.refuse(refusal(`Too many calls in flight (${limit}); this one waited ${limits.queueMs} ms`));
        }, limits.queueMs);
        clientGone.addEventListener("abort", onClientGone, { once: true });
        own.waiting.push(waiter);
      });
      await Promise.all([turn, hooks("calls.queued", accountId)]);
      return leave;
    },
  };
}

export type CallGate = ReturnType<typeof createCallGate>;

/**
 * Each call holds a slot of its token and of its account while it runs, so that one caller cannot fill the server
 * (429 with `Retry-After` when none frees in time). A call whose client has already gone does not start.
 */
export const limitCallsInFlight = accountMiddleware(async ({ ctx, next }) => {
  if (ctx.clientGone.aborted) {
    throw new DomainError("BAD_REQUEST", "The client closed the request before its call started");
  }
  if (!ctx.callGate) return next();
  const entry = { accountId: ctx.holder.accountId, tokenId: ctx.holder.tokenId, clientGone: ctx.clientGone };
  let leave: () => void;
  try {
    leave = await ctx.callGate.enter(entry);
  } catch (error) {
    if (error instanceof DomainError && error.code === "TOO_MANY_REQUESTS") {
      ctx.setHeader("Retry-After", String(ctx.callGate.retryAfterSeconds));
    }
    throw error;
  }
  try {
    return await next();
  } finally {
    leave();
  }
});
