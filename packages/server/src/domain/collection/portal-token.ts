import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * What a customer portal link grants: one customer of one account, until `expiresAt` (seconds since the epoch).
 * `issuedAt` (milliseconds) is when it was made: a revocation of the customer's links refuses those made until then.
 */
export interface PortalGrant {
  accountId: string;
  customerId: string;
  expiresAt: number;
  issuedAt?: number;
  returnUrl?: string;
}

const encode = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const macOf = (payload: string, key: Buffer) => createHmac("sha256", key).update(payload).digest("base64url");

/**
 * The link's token: `<payload>.<mac>`, the payload the grant as base64url JSON and the mac HMAC-SHA256 of it under the
 * account's portal key. Nothing is stored per link: the key checks it, the payload says what it grants.
 */
export function signPortalToken(grant: PortalGrant, key: Buffer): string {
  const payload = encode(JSON.stringify(grant));
  return `${payload}.${macOf(payload, key)}`;
}

/** The account a token claims to be of (to find its key), before it is verified; undefined: not a token. */
export function claimedAccountOf(token: string): string | undefined {
  const grant = grantOf(token.split(".")[0] ?? "");
  return grant?.accountId;
}

function grantOf(payload: string): PortalGrant | undefined {
  try {
    const grant = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Partial<PortalGrant>;
    if (typeof grant.accountId !== "string" || typeof grant.customerId !== "string") return undefined;
    if (typeof grant.expiresAt !== "number") return undefined;
    if (grant.issuedAt !== undefined && typeof grant.issuedAt !== "number") return undefined;
    if (grant.returnUrl !== undefined && typeof grant.returnUrl !== "string") return undefined;
    return grant as PortalGrant;
  } catch {
    return undefined;
  }
}

/**
 * The grant of a token whose mac matches under `key` and that has not expired at `now`; else why not (a changed
 * payload or mac, another account's key, or too late all answer 401 alike).
 */
export function verifyPortalToken(token: string, key: Buffer, now: Date): PortalGrant | string {
  const [payload = "", mac = "", ...rest] = token.split(".");
  if (rest.length > 0 || !payload || !mac) return "not a portal link";
  const expected = Buffer.from(macOf(payload, key));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "the link's signature is wrong";
  const grant = grantOf(payload);
  if (!grant) return "not a portal link";
  if (now.getTime() >= grant.expiresAt * 1000) return "the link has expired";
  return grant;
}

/**
 * Whether a verified grant was revoked: made at or before the customer's last revocation (`revokedAt`, ms). A link
 * made before links carried `issuedAt` counts as made at 0, so any revocation refuses it.
 */
export const isRevoked = (grant: PortalGrant, revokedAt: number | undefined): boolean =>
  revokedAt !== undefined && (grant.issuedAt ?? 0) <= revokedAt;
