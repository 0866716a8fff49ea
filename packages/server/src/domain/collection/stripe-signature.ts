import { createHmac, timingSafeEqual } from "node:crypto";

/** How far a signed event's timestamp may be from now: Stripe's own default tolerance. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * The `Stripe-Signature` header Stripe sends for `payload` at `timestamp` (seconds): `t=<timestamp>,v1=<hex>`, where
 * the hex is HMAC-SHA256 under the endpoint's whole signing secret (`whsec_…`) of `<timestamp>.<payload>`.
 */
export function stripeSignatureHeader(payload: string, secret: string, timestamp: number): string {
  return `t=${timestamp},v1=${signatureOf(payload, secret, timestamp)}`;
}

const signatureOf = (payload: string, secret: string, timestamp: number) =>
  createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");

/**
 * Why a webhook is refused, or undefined when its signature is good: one `v1` of the header must match (several are
 * sent while a secret rolls), and its `t` be within the tolerance of `now` (a stale or replayed capture is refused;
 * the event id, recorded once, stops a replay within it).
 */
export function refusalOfSignature(
  payload: string,
  header: string | undefined,
  secret: string,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): string | undefined {
  if (!header) return "no Stripe-Signature header";
  const parts = header.split(",").map((part) => part.trim().split("="));
  const timestamp = Number(parts.find(([key]) => key === "t")?.[1]);
  const signatures = parts.filter(([key, value]) => key === "v1" && value).map(([, value]) => value as string);
  if (!Number.isInteger(timestamp) || signatures.length === 0) return "a Stripe-Signature header without t and v1";
  const expected = Buffer.from(signatureOf(payload, secret, timestamp), "utf8");
  const matches = signatures.some((signature) => {
    const given = Buffer.from(signature, "utf8");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return "no signature matches the payload";
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return "the signature's timestamp is stale";
  return undefined;
}
