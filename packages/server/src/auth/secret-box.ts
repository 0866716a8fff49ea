import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Webhook signing secrets at rest. A token can be stored as a hash, but a signing secret cannot: HMAC needs the key
 * itself. So it is sealed with AES-256-GCM under a key the database does not hold (WEBHOOK_SECRET_KEYS): a copy of
 * the database alone cannot sign a webhook. The kept answers of keyed calls, which may show a secret, are sealed too.
 * The sealed text names its key (so keys can be rotated: the first seals, every listed one opens) and is bound to the
 * secret's place (`context`), so a sealed secret moved to another endpoint's record does not open.
 */

const KEY_BYTES = 32;
const IV_BYTES = 12;
const SEALED_PREFIX = "sealed.v1.";

export interface SealingKey {
  /** The first 8 hex digits of the key's SHA-256: names the key in what it sealed, reveals nothing of it. */
  id: string;
  bytes: Buffer;
}

/** The keys of `WEBHOOK_SECRET_KEYS` (comma-separated, each 32 bytes as 64 hex digits or base64), or why not. */
export function parseSealingKeys(text: string): SealingKey[] | string {
  const keys: SealingKey[] = [];
  for (const [index, part] of text.split(",").entries()) {
    const written = part.trim();
    const isHex = /^[0-9a-f]{64}$/i.test(written);
    const bytes = Buffer.from(written, isHex ? "hex" : "base64");
    // Node's base64 decoding skips what is not base64: only text that encodes back to itself is taken.
    if (bytes.length !== KEY_BYTES || !(isHex || bytes.toString("base64") === written)) {
      return `key ${index + 1} is not 32 bytes as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`)`;
    }
    keys.push({ id: createHash("sha256").update(bytes).digest("hex").slice(0, 8), bytes });
  }
  return keys;
}

/** A stored secret that cannot be opened with the keys at hand. */
export class SealedSecretError extends Error {}

export interface SecretBox {
  /** What to store for `secret`: sealed with the first key, or the secret itself when no key is configured. */
  seal(secret: string, context: string): string;
  /** The secret `stored` holds: opened with the key it names, or itself when it was stored unsealed. */
  open(stored: string, context: string): string;
}

export function createSecretBox(keys: SealingKey[]): SecretBox {
  return {
    seal(secret, context) {
      const [key] = keys;
      if (!key) return secret;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key.bytes, iv).setAAD(Buffer.from(context));
      const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      const parts = [iv, sealed, cipher.getAuthTag()].map((part) => part.toString("base64url"));
      return `${SEALED_PREFIX}${key.id}.${parts.join(".")}`;
    },
    open(stored, context) {
      if (!stored.startsWith(SEALED_PREFIX)) return stored;
      const [keyId, iv, sealed, tag] = stored.slice(SEALED_PREFIX.length).split(".");
      const key = keys.find((candidate) => candidate.id === keyId);
      if (!key || iv === undefined || sealed === undefined || tag === undefined) {
        throw new SealedSecretError(`the signing secret is sealed with key ${keyId}, which WEBHOOK_SECRET_KEYS lacks`);
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(iv, "base64url"));
        decipher.setAAD(Buffer.from(context)).setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw new SealedSecretError(`the signing secret sealed with key ${keyId} does not open: altered or moved`);
      }
    },
  };
}
