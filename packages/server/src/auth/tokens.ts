import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const TOKEN_PREFIX = "bill_";

/** 32 random bytes: enough entropy that a fast hash is a safe way to store it (no salt or KDF needed). */
export const generateToken = () => TOKEN_PREFIX + randomBytes(32).toString("base64url");

export const hashToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

/** Constant-time comparison of two secrets of any length. */
export const secretsEqual = (given: string, expected: string) =>
  timingSafeEqual(Buffer.from(hashToken(given), "hex"), Buffer.from(hashToken(expected), "hex"));

/** The token of an `Authorization: Bearer <token>` header, or undefined when the header is absent or malformed. */
export function bearerToken(header: string | undefined | null): string | undefined {
  const match = /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/.exec(header?.trim() ?? "");
  return match?.[1];
}
