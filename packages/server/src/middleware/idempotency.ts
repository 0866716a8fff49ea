import { createHash } from "node:crypto";
import type { ErrorBody } from "@billing/shared";
// The marker tRPC puts on every middleware result: needed to answer a call from a middleware (a replay).
import { middlewareMarker } from "@trpc/server/unstable-core-do-not-import";
import type { SetHeader } from "../context.js";
import { badRequest, conflict, DomainError } from "../domain/errors.js";
import { statusOf, toErrorBody } from "../error-body.js";
import type { Logger } from "../logger.js";
import type { HeldKey, IdempotencyKeyRepository } from "../repositories/idempotency-keys.js";
import { t } from "../trpc.js";
import { accountMiddleware } from "./authenticate.js";
import { refuseDeepNesting } from "./input-depth.js";

/** 1 to 255 visible ASCII characters (no spaces), e.g. a UUID. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What a call ended with, as stored under its key and replayed to repeats. */
type Outcome = { ok: true; data: unknown } | { ok: false; error: ErrorBody };

/** The `Idempotency-Key` of a request, checked; undefined when none was sent. */
function idempotencyKeyOf(header: string | undefined, callsInRequest: number): string | undefined {
  if (header === undefined) return undefined;
  if (!KEY_PATTERN.test(header)) {
    throw badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters", [
      { path: "Idempotency-Key", message: "1 to 255 visible ASCII characters" },
    ]);
  }
  if (callsInRequest > 1) {
    throw badRequest("An Idempotency-Key names one call: send a keyed mutation in a tRPC request of its own");
  }
  return header;
}

/** JSON with object keys sorted at every level: equal inputs give equal text, whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Same procedure (REST method and path) and same canonical input, same fingerprint. */
export const requestFingerprint = (procedurePath: string, rawInput: unknown) => {
  refuseDeepNesting(rawInput); // canonicalJson recurses: tRPC inputs come here unchecked
  return createHash("sha256")
    .update(`${procedurePath}\n${canonicalJson(rawInput)}`)
    .digest("hex");
};

/**
 * What a call's answer says about its effect. Successes and the caller's own mistakes (4xx) are `kept`, so a
 * repeat answers the same. 409 and 429 depend on a moment's state (a name taken, a busy minute) and are decided
 * before anything is written: `free`, the key is released and a repeat runs again. A 5xx is our fault and may come
 * after the call took effect (a write that landed but whose acknowledgement was lost): `unknown`, never run again.
 */
function effectOf(outcome: Outcome): "kept" | "free" | "unknown" {
  if (outcome.ok) return "kept";
  const status = statusOf(outcome.error);
  if (status >= 500) return "unknown";
  return status === 409 || status === 429 ? "free" : "kept";
}

/** Response header telling a 409 on a held key apart: `in-progress` (retry later) or `outcome-unknown` (do not). */
const STATUS_HEADER = "Idempotency-Status";

const OUTCOME_UNKNOWN_MESSAGE =
  "The request first sent with this Idempotency-Key may or may not have taken effect (it failed on our side, or its " +
  "answer could not be stored), and it is never run again under this key: check whether it took effect (e.g. list " +
  "the credit ledger or read the resource) and, if it did not, send it again with a new key";

const STORE_ATTEMPTS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records under the key what became of its call (`outcome` undefined: the call threw), trying again a few times so
 * that a brief database fault loses nothing. A lasting failure is logged, not thrown: the call's own answer still
 * goes to its caller, and repeats get 409 outcome-unknown once the holder's heartbeat has stopped.
 */
async function settle(keys: IdempotencyKeyRepository, held: HeldKey, outcome: Outcome | undefined, log: Logger) {
  const effect = outcome ? effectOf(outcome) : "unknown";
  const write = () =>
    effect === "kept" ? keys.complete(held, outcome) : effect === "free" ? keys.release(held) : keys.markUnknown(held);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (attempt === STORE_ATTEMPTS) {
        return log.error({ err: error, effect }, "could not store the outcome of a keyed call");
      }
      await sleep(100 * attempt);
    }
  }
}

interface KeyedRequest {
  accountId: string;
  key: string;
  fingerprint: string;
  setHeader: SetHeader;
  log: Logger;
}

/**
 * Runs `call` at most once per account and key, ever (within the key's retention): `{ ran }` for the request that
 * ran it. A repeat with the same fingerprint gets the stored outcome (`{ replayed }`); with another fingerprint it
 * is a 409; while the first still runs, a 409 with `Idempotency-Status: in-progress`; when the first stopped
 * without a stored outcome, or failed with a 5xx, a 409 with `Idempotency-Status: outcome-unknown`.
 */
async function runIdempotently<T>(
  keys: IdempotencyKeyRepository,
  request: KeyedRequest,
  call: () => Promise<T>,
  outcomeOf: (result: T) => Outcome,
): Promise<{ ran: T } | { replayed: Outcome }> {
  const { accountId, key, fingerprint, setHeader, log } = request;
  const claim = await keys.claim(accountId, key, fingerprint);
  if ("existing" in claim) {
    const { existing } = claim;
    if (existing.fingerprint !== fingerprint) {
      throw conflict("This Idempotency-Key was already used for a different request (method, path or body)");
    }
    if (existing.state === "running") {
      setHeader(STATUS_HEADER, "in-progress");
      throw conflict("A request with this Idempotency-Key is still in progress; retry once it has completed");
    }
    if (existing.state === "unknown") {
      setHeader(STATUS_HEADER, "outcome-unknown");
      throw conflict(OUTCOME_UNKNOWN_MESSAGE);
    }
    return { replayed: JSON.parse(existing.outcome) as Outcome };
  }
  const { held } = claim;
  const stopHeartbeat = keys.keepAlive(held);
  try {
    let result: T;
    try {
      result = await call();
    } catch (error) {
      await settle(keys, held, undefined, log);
      throw error;
    }
    await settle(keys, held, outcomeOf(result), log);
    return { ran: result };
  } finally {
    stopHeartbeat();
  }
}

/** What a call's middleware result is stored as: its data, or its error body. */
const outcomeOf = (result: { ok: true; data: unknown } | { ok: false; error: unknown }): Outcome =>
  result.ok ? { ok: true, data: result.data } : { ok: false, error: toErrorBody(result.error) };

/**
 * A mutation with an `Idempotency-Key` runs at most once per account and key: a repeat gets the first answer
 * (`Idempotent-Replayed: true`), or a 409 while that answer is not known (see runIdempotently).
 */
export const idempotent = accountMiddleware(async ({ ctx, type, path, getRawInput, next }) => {
  const key = type === "mutation" ? idempotencyKeyOf(ctx.idempotencyKey, ctx.callsInRequest) : undefined;
  if (key === undefined) return next();
  const fingerprint = requestFingerprint(path, await getRawInput());
  const run = await runIdempotently(
    ctx.repositories.idempotencyKeys,
    { accountId: ctx.accountId, key, fingerprint, setHeader: ctx.setHeader, log: ctx.trace.log },
    () => next(),
    outcomeOf,
  );
  if ("ran" in run) return run.ran;
  ctx.setHeader("Idempotent-Replayed", "true");
  const { replayed } = run;
  if (!replayed.ok) throw new DomainError(replayed.error.code, replayed.error.message, replayed.error.issues);
  return { ok: true as const, data: replayed.data, ctx: {}, marker: middlewareMarker };
});

/** Admin calls refuse the header: their answers hold token secrets, which are never stored. */
export const refuseIdempotencyKey = t.middleware(({ ctx, type, next }) => {
  if (type === "mutation" && ctx.idempotencyKey !== undefined) {
    const why = "their answers hold token secrets, which are never stored";
    throw badRequest(`Idempotency-Key is not accepted on admin calls: ${why}`);
  }
  return next();
});
