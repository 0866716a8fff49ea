import { createHash } from "node:crypto";
import type { ErrorBody } from "@billing/shared";
import { ApiError, HTTP_STATUS, badRequest } from "../errors.js";
import { refuseDeepNesting } from "./body.js";
import type { IdempotencyKeyRepository } from "../repositories/idempotency-keys.js";

/** 1 to 255 visible ASCII characters (no spaces), e.g. a UUID. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What a call ended with, as stored under its key and replayed to repeats. */
export type Outcome = { ok: true; data: unknown } | { ok: false; error: ErrorBody };

/** The `Idempotency-Key` of a request, checked; undefined when none was sent. */
export function idempotencyKeyOf(header: string | undefined, callsInRequest: number): string | undefined {
  if (header === undefined) return undefined;
  if (!KEY_PATTERN.test(header)) {
    throw badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters", [
      { path: "Idempotency-Key", message: "1 to 255 visible ASCII characters" },
    ]);
  }
  if (callsInRequest > 1) throw badRequest("An Idempotency-Key names one call: send a keyed mutation in a tRPC request of its own");
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
  return createHash("sha256").update(`${procedurePath}\n${canonicalJson(rawInput)}`).digest("hex");
};

/**
 * Successes and the caller's own mistakes (4xx) are kept, so a repeat answers the same. Not kept: 409 and 429,
 * which depend on a moment's state (a name taken, a busy minute), and 5xx, our faults: the key is freed and a
 * repeat runs again.
 */
const isKept = (outcome: Outcome) => {
  if (outcome.ok) return true;
  const status = HTTP_STATUS[outcome.error.code];
  return status < 500 && status !== 409 && status !== 429;
};

/**
 * Runs `call` at most once per account and key: `{ ran }` for the request that ran it. A repeat with the same
 * fingerprint gets the stored outcome (`{ replayed }`); with another fingerprint, or while the first still
 * runs, it is a 409.
 */
export async function runIdempotently<T>(
  keys: IdempotencyKeyRepository,
  request: { accountId: string; key: string; fingerprint: string },
  call: () => Promise<T>,
  outcomeOf: (result: T) => Outcome,
): Promise<{ ran: T } | { replayed: Outcome }> {
  const { accountId, key, fingerprint } = request;
  const claim = await keys.claim(accountId, key, fingerprint);
  if ("existing" in claim) {
    if (claim.existing.fingerprint !== fingerprint) {
      throw new ApiError("CONFLICT", "This Idempotency-Key was already used for a different request (method, path or body)");
    }
    if (claim.existing.outcome === null) {
      throw new ApiError("CONFLICT", "A request with this Idempotency-Key is still in progress; retry once it has completed");
    }
    return { replayed: JSON.parse(claim.existing.outcome) as Outcome };
  }
  let result: T;
  try {
    result = await call();
  } catch (error) {
    await keys.release(accountId, key, claim.claimed);
    throw error;
  }
  const outcome = outcomeOf(result);
  if (isKept(outcome)) await keys.complete(claim.claimed, outcome, `${accountId}/${key}`);
  else await keys.release(accountId, key, claim.claimed);
  return { ran: result };
}
