import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { useTestServer } from "./support/harness.js";

const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));

const server = useTestServer();

/** The operator CLI as an operator runs it, against the test server's database. */
function billing(...args: string[]) {
  return run("npx", ["tsx", "src/cli.ts", ...args], {
    cwd: SERVER_DIR,
    env: { ...process.env, MONGODB_URI: inject("mongodbUri"), MONGODB_DB: server.service.db.databaseName },
  });
}

describe("operator CLI", () => {
  it("creates an account whose token works, and further tokens for it", async () => {
    const created = JSON.parse((await billing("accounts", "create", "From CLI")).stdout);
    expect(created.account).toMatchObject({ name: "From CLI", id: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect((await server.rest("GET", "/customers", { token: created.token })).status).toBe(200);

    const second = JSON.parse((await billing("tokens", "create", created.account.id)).stdout);
    expect(second.token).not.toBe(created.token);
    expect((await server.rest("GET", "/customers", { token: second.token })).status).toBe(200);
  });

  it("creates read tokens, lists, rotates and revokes tokens", { timeout: 60_000 }, async () => {
    const { account, tokenId: firstId } = JSON.parse((await billing("accounts", "create", "Token owner")).stdout);
    const reader = JSON.parse((await billing("tokens", "create", account.id, "--scope", "read")).stdout);
    expect((await server.rest("GET", "/customers", { token: reader.token })).status).toBe(200);
    expect((await server.rest("POST", "/customers", { token: reader.token, body: { name: "x" } })).status).toBe(403);

    const rotated = JSON.parse((await billing("tokens", "rotate", reader.tokenId, "--grace", "600")).stdout);
    expect((await server.rest("GET", "/customers", { token: rotated.token })).status).toBe(200);
    expect((await server.rest("GET", "/customers", { token: reader.token })).status).toBe(200);
    const revoked = JSON.parse((await billing("tokens", "revoke", reader.tokenId)).stdout);
    expect(revoked).toEqual({ tokenId: reader.tokenId, revokedAt: expect.stringMatching(/Z$/) });
    expect((await server.rest("GET", "/customers", { token: reader.token })).status).toBe(401);

    const { stdout } = await billing("tokens", "list", account.id);
    expect(
      JSON.parse(stdout).tokens.map((t: { id: string; scope: string; revokedAt: string | null }) => [
        t.id,
        t.scope,
        t.revokedAt !== null,
      ]),
    ).toEqual([
      [firstId, "write", false],
      [reader.tokenId, "read", true],
      [rotated.tokenId, "read", false],
    ]);
    expect(stdout).not.toContain(rotated.token);
    await expect(billing("tokens", "rotate", reader.tokenId)).rejects.toMatchObject({ code: 1 });
  });

  it("refuses bad token options with exit code 2, and unknown tokens with 1", async () => {
    const unknownId = "0123456789abcdef01234567";
    await expect(billing("tokens", "create", unknownId, "--scope", "admin")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--scope"),
    });
    await expect(billing("tokens", "rotate", unknownId, "--grace", "soon")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--grace"),
    });
    await expect(billing("tokens", "revoke", unknownId)).rejects.toMatchObject({ code: 1 });
  });

  it("prints the usage with exit code 2 when no command is given, 0 for --help", async () => {
    await expect(billing()).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("Usage") });
    expect((await billing("--help")).stderr).toContain("Usage");
  });

  it("refuses an unknown account and unknown commands with a non-zero exit", async () => {
    await expect(billing("tokens", "create", "0123456789abcdef01234567")).rejects.toMatchObject({ code: 1 });
    await expect(billing("accounts", "remove", "x")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Usage"),
    });
    await expect(billing("tokens", "forge", "x")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Usage"),
    });
  });
});
