import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox, parseSealingKeys, SealedSecretError, type SealingKey } from "../src/auth/secret-box.js";
import { generateSecret } from "../src/domain/webhooks/signing.js";

const newKey = (): SealingKey => {
  const keys = parseSealingKeys(randomBytes(32).toString("base64"));
  if (typeof keys === "string") throw new Error(keys);
  return keys[0] as SealingKey;
};

describe("WEBHOOK_SECRET_KEYS", () => {
  it("takes 32-byte keys as 64 hex digits or base64, comma-separated, each named by its hash", () => {
    const hex = "ab".repeat(32);
    const base64 = Buffer.alloc(32, 7).toString("base64");
    const keys = parseSealingKeys(`${hex}, ${base64}`);
    if (typeof keys === "string") throw new Error(keys);
    expect(keys.map((key) => key.bytes)).toEqual([Buffer.from(hex, "hex"), Buffer.alloc(32, 7)]);
    expect(keys.map((key) => key.id)).toEqual([expect.stringMatching(/^[0-9a-f]{8}$/), expect.any(String)]);
    expect(keys[0]?.id).not.toBe(keys[1]?.id);
  });

  it.each([
    ["too short", Buffer.alloc(16).toString("base64")],
    ["too long", "ab".repeat(33)],
    ["not base64", `${"!".repeat(43)}=`],
    ["empty", ""],
    ["an empty second key", `${"ab".repeat(32)},`],
  ])("refuses a key %s, naming its place", (_case, text) => {
    expect(parseSealingKeys(text)).toMatch(/^key \d is not 32 bytes/);
  });
});

describe("the secret box", () => {
  const secret = generateSecret();
  const place = "65f0c0ffee0000000000beef/1";

  it("seals with the first key: the stored text names the key and holds nothing of the secret", () => {
    const [first, second] = [newKey(), newKey()];
    const sealed = createSecretBox([first, second]).seal(secret, place);
    expect(sealed).toMatch(new RegExp(`^sealed\\.v1\\.${first.id}\\.`));
    expect(sealed).not.toContain(secret.slice("whsec_".length, 20));
    expect(createSecretBox([first]).open(sealed, place)).toBe(secret);
  });

  it("opens with any listed key (rotation), and not with the key missing", () => {
    const [old, current] = [newKey(), newKey()];
    const sealedByOld = createSecretBox([old]).seal(secret, place);
    expect(createSecretBox([current, old]).open(sealedByOld, place)).toBe(secret);
    expect(() => createSecretBox([current]).open(sealedByOld, place)).toThrow(
      new SealedSecretError(`the signing secret is sealed with key ${old.id}, which WEBHOOK_SECRET_KEYS lacks`),
    );
    expect(() => createSecretBox([]).open(sealedByOld, place)).toThrow(SealedSecretError);
  });

  it("does not open a sealed secret moved to another place, or altered", () => {
    const key = newKey();
    const box = createSecretBox([key]);
    const sealed = box.seal(secret, place);
    expect(() => box.open(sealed, "65f0c0ffee0000000000beef/2")).toThrow(/does not open: altered or moved/);
    const [head, tag] = [sealed.slice(0, -4), sealed.slice(-4)];
    const altered = head + (tag === "AAAA" ? "BBBB" : "AAAA");
    expect(() => box.open(altered, place)).toThrow(/does not open/);
  });

  it("stores and reads a secret as it is without keys, and still reads one stored unsealed once keys are set", () => {
    expect(createSecretBox([]).seal(secret, place)).toBe(secret);
    expect(createSecretBox([newKey()]).open(secret, place)).toBe(secret);
  });

  it("seals the same secret differently each time (a fresh IV)", () => {
    const box = createSecretBox([newKey()]);
    expect(box.seal(secret, place)).not.toBe(box.seal(secret, place));
  });
});
