import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookEvent } from "./types.js";

/** A delivery that is not ours, was changed on the way, or is too old (or too far ahead) to trust. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

export interface VerifyWebhookParams {
  /** The request body exactly as received (the raw bytes or text, not parsed and re-serialized JSON). */
  payload: string | Uint8Array;
  /** The request's headers: a fetch `Headers`, or Node's `req.headers`. */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The endpoint's signing secret, `whsec_…`. */
  secret: string;
  /** How far the `webhook-timestamp` may be from now; default 300 s (5 minutes). */
  toleranceSeconds?: number;
  /** The current time; default the clock's. */
  now?: Date;
}

const DEFAULT_TOLERANCE_SECONDS = 300;

/** A header by its lowercase name, in whatever case the receiving framework kept it. */
function header(headers: VerifyWebhookParams["headers"], name: string): string {
  const key =
    headers instanceof Headers ? name : Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = headers instanceof Headers ? headers.get(name) : key === undefined ? undefined : headers[key];
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) throw new WebhookVerificationError(`Missing ${name} header`);
  return text;
}

const keyOf = (secret: string) =>
  Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");

/**
 * Checks a delivery the Standard Webhooks way and returns its event, typed by `type`: the `webhook-signature` header
 * must hold a `v1` signature (HMAC-SHA256 of `id.timestamp.body` with the secret) that matches, compared in
 * constant time, and `webhook-timestamp` must be within 5 minutes of now, so a captured delivery cannot be replayed
 * later. Throws `WebhookVerificationError` otherwise. Needs no client: call it in your receiver with the raw body.
 */
export function verifyWebhook(params: VerifyWebhookParams): WebhookEvent {
  const { payload, headers, secret, toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = new Date() } = params;
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError("Invalid webhook-timestamp header");
  if (Math.abs(now.getTime() / 1000 - seconds) > toleranceSeconds) {
    throw new WebhookVerificationError("The webhook-timestamp is too far from now: a replay, or a clock to set right");
  }
  const body = typeof payload === "string" ? payload : Buffer.from(payload).toString("utf8");
  const expected = createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(" ").some((signature) => {
    const [version, value] = signature.split(",", 2);
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError("No signature matches: wrong secret, or a changed body");
  return JSON.parse(body) as WebhookEvent;
}
