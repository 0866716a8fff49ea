import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { operatorCli } from "./support/cli.js";
import { useTestServer } from "./support/harness.js";
import { readParquet } from "./support/pyarrow.js";

/**
 * The operators' CLI (`pnpm billing …`): accounts, tokens and exports, each command run as a child process as an
 * operator would run it (which database it opens: cli.databases.test.ts). Slow: each command starts tsx and opens the
 * database anew, and the export test writes a Parquet file that pyarrow reads back.
 */
const server = useTestServer();
const { billing, emptyDataDir } = operatorCli(server);

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
    // Each change is in the account's audit log as the CLI's, newest first; the refused rotation is not.
    const log = await server.rest("GET", "/audit-log?actor=cli", { token: rotated.token });
    expect(log.body.entries.map((entry: any) => [entry.action, entry.resource, entry.changes])).toEqual([
      ["tokens.revoke", { type: "token", id: reader.tokenId }, []],
      ["tokens.rotate", { type: "token", id: rotated.tokenId }, ["grace"]],
      ["tokens.create", { type: "token", id: reader.tokenId }, ["scope"]],
      ["accounts.create", { type: "account", id: account.id }, ["name"]],
    ]);
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

  it("exports an account's events as POST /exports does: NDJSON to stdout, Parquet to a file", {
    timeout: 90_000,
  }, async () => {
    const { account, token } = JSON.parse((await billing("accounts", "create", "Exported")).stdout);
    // Three events on Mar 1, 2 and 3, and one on Apr 1 (outside the window).
    const events = ["2026-03-01", "2026-03-02", "2026-03-03", "2026-04-01"].map((day, index) => ({
      ref: `cli-${index}`,
      name: "api_call",
      timestamp: `${day}T12:00:00Z`,
      customerAlias: "cli-alias",
      data: { units: String(index + 1) },
    }));
    expect((await server.rest("POST", "/events", { token, body: { events } })).status).toBe(200);
    const window = ["--from", "2026-03-01T00:00:00Z", "--to", "2026-04-01T00:00:00Z"];
    const ndjson = await billing("export", account.id, "--kind", "events", ...window, "--format", "ndjson");
    const rows = ndjson.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(rows.map((row) => row.ref)).toEqual(["cli-0", "cli-1", "cli-2"]);
    expect(ndjson.stderr).toContain("3 rows");

    const out = join(await emptyDataDir(), "events.parquet");
    await billing("export", account.id, "--kind", "events", ...window, "--format", "parquet", "--out", out);
    // Σ units 1 + 2 + 3 = 6, read by pyarrow.
    const read = readParquet(out, ["data"]);
    expect(read.rows).toBe(3);
    expect(read.values.data!.reduce((sum, data) => sum + Number(JSON.parse(data!).units), 0)).toBe(6);
    // Both exports are the account's, as if asked over the API, and audited with the CLI as actor.
    const audit = await server.rest("GET", "/audit-log?actor=cli", { token });
    expect(audit.body.entries.filter((entry: { action: string }) => entry.action === "exports.create")).toHaveLength(2);

    await expect(billing("export", account.id, "--kind", "customers", ...window)).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--kind"),
    });
  });

  it("lists every account, oldest first, one JSON line each", async () => {
    const first = JSON.parse((await billing("accounts", "create", "Listed first")).stdout).account;
    const second = JSON.parse((await billing("accounts", "create", "Listed second")).stdout).account;
    const listed = (await billing("accounts", "list")).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(listed.filter((account) => [first.id, second.id].includes(account.id))).toEqual([first, second]);
    expect(listed.map((account) => account.id)).toEqual(listed.map((account) => account.id).sort());
    await expect(billing("accounts", "list", "extra")).rejects.toMatchObject({ code: 2 });
  });
});
