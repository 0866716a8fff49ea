import { describe, expect, it } from "vitest";
import { useTestServer } from "./support/harness.js";
import { testHooks } from "./support/hooks.js";
import { ADMIN_TOKEN } from "./support/server.js";

const control = testHooks();
const server = useTestServer({ hooks: control.hooks });

const admin = (method: string, path: string, body?: unknown) => server.rest(method, path, { token: ADMIN_TOKEN, body });
const tokensOf = async (accountId: string) =>
  (await admin("GET", `/admin/accounts/${accountId}/tokens`)).body.tokens as { id: string; revokedAt: string | null }[];
const works = async (token: string) => (await server.rest("GET", "/customers", { token })).status === 200;

async function accountWithToken() {
  const { accountId, token } = await server.newAccount();
  const tokenId = (await tokensOf(accountId))[0]!.id;
  return { accountId, token, tokenId };
}

describe("a revocation answered 200 holds against concurrent rotations", () => {
  it("a rotation with a day's grace that read the token before the revocation does not bring it back", async () => {
    const { accountId, token, tokenId } = await accountWithToken();
    const pause = control.pauseOnce("tokens.rotate:read", tokenId);
    const rotation = admin("POST", `/admin/tokens/${tokenId}/rotate`, { graceSeconds: 86_400 });
    await pause.reached; // the rotation has seen the token live, and has not written yet
    const revoked = await admin("DELETE", `/admin/tokens/${tokenId}`);
    expect(revoked.status).toBe(200);
    pause.release();
    const rotated = await rotation;

    // The rotation counts as made before the revocation: its successor stands; the revoked token stays revoked.
    expect(rotated.status).toBe(201);
    expect(await works(rotated.body.token)).toBe(true);
    expect(await works(token)).toBe(false);
    expect((await tokensOf(accountId)).find((t) => t.id === tokenId)!.revokedAt).toBe(revoked.body.revokedAt);
  });

  it("a revocation that read the token before a rotation with grace ends it at once all the same", async () => {
    const { token, tokenId } = await accountWithToken();
    const pause = control.pauseOnce("tokens.revoke:read", tokenId);
    const revocation = admin("DELETE", `/admin/tokens/${tokenId}`);
    await pause.reached;
    const rotated = await admin("POST", `/admin/tokens/${tokenId}/rotate`, { graceSeconds: 86_400 });
    expect(rotated.status).toBe(201);
    expect(await works(token)).toBe(true); // in its grace period
    pause.release();
    expect((await revocation).status).toBe(200);
    expect(await works(token)).toBe(false);
    expect(await works(rotated.body.token)).toBe(true);
  });

  it("concurrent revocations of one token: one 200, the others 404, and the token is refused", async () => {
    const { token, tokenId } = await accountWithToken();
    const answers = await Promise.all(Array.from({ length: 8 }, () => admin("DELETE", `/admin/tokens/${tokenId}`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404, 404, 404, 404, 404, 404, 404]);
    expect(await works(token)).toBe(false);
  });

  it("a revoked token cannot be rotated, with or without grace", async () => {
    const { token, tokenId } = await accountWithToken();
    expect((await admin("DELETE", `/admin/tokens/${tokenId}`)).status).toBe(200);
    expect((await admin("POST", `/admin/tokens/${tokenId}/rotate`, { graceSeconds: 86_400 })).status).toBe(404);
    expect(await works(token)).toBe(false);
  });
});
