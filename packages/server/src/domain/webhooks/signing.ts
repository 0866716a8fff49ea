import { createHmac, randomBytes } from "node:crypto";

/** Standard Webhooks serializes symmetric secrets as `whsec_` + base64 of the key's bytes. */
const SECRET_PREFIX = "whsec_";
/** The specification asks for 24 to 64 bytes; 32 is the HMAC-SHA256 block-size sweet spot. */
const SECRET_BYTES = 32;

export const generateSecret = () => SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");

const keyOf = (secret: string) => Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");

/** `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, the Standard Webhooks symmetric signature. */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const digest = createHmac("sha256", keyOf(secret))
    .update(`${messageId}.${timestampSeconds}.${body}`)
    .digest("base64");
  return `v1,${digest}`;
}

/** The three headers of one attempt; each secret adds a signature (two while an old secret still signs). */
export function signedHeaders(
  secrets: string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((secret) => sign(secret, messageId, timestampSeconds, body)).join(" "),
  };
}
