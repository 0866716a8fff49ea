import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { connectMongo } from "../src/db/connect.js";
import { provisionDatabase, publishInstance } from "../src/db/provision.js";
import { createAccountRepository } from "../src/repositories/accounts.js";
import { useTestServer } from "./support/harness.js";
import { readParquet } from "./support/pyarrow.js";

/**
 * The operators' CLI (`pnpm billing …`), each command run as a child process as an operator would run it.
 * Slow: about 65 s beside other files: each command starts tsx and opens the database anew (13 commands), and the
 * export test writes a Parquet file that pyarrow reads back.
 */
const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

const server = useTestServer();
const dataDirs: string[] = [];
afterAll(() => Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** An empty DATA_DIR of the test's own, removed after the file. */
async function emptyDataDir() {
  const dir = await mkdtemp(join(tmpdir(), "billing-cli-data-"));
  dataDirs.push(dir);
  return dir;
}

/** The environment without the database settings, which each test sets as an operator would. */
const { MONGODB_URI: _uri, MONGODB_DB: _db, DATA_DIR: _dataDir, ...baseEnv } = process.env;

/** The operator CLI as an operator runs it, with `env` on top of no database settings. */
function billingWith(env: NodeJS.ProcessEnv, ...args: string[]) {
  return run("npx", ["tsx", "src/cli.ts", ...args], { cwd: SERVER_DIR, env: { ...baseEnv, ...env } });
}

/** The operator CLI against the test server's database. */
function billing(...args: string[]) {
  return billingWith({ MONGODB_URI: inject("mongodbUri"), MONGODB_DB: server.service.db.databaseName }, ...args);
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

  it("says which database it uses", async () => {
    const { stderr } = await billing("accounts", "list");
    const db = server.service.db.databaseName;
    expect(stderr).toContain(`using the database "${db}" at MONGODB_URI ${inject("mongodbUri")}`);
  });

  it("uses the embedded database of the server running on DATA_DIR, and says so", async () => {
    const dataDir = await emptyDataDir();
    // What `pnpm start` publishes for its embedded database; this test process serves the test server's database.
    await publishInstance(dataDir, inject("mongodbUri"));
    const env = { DATA_DIR: dataDir, MONGODB_DB: server.service.db.databaseName };
    const created = JSON.parse((await billingWith(env, "accounts", "create", "Via DATA_DIR")).stdout);
    expect(await server.service.repositories.accounts.exists(created.account.id)).toBe(true);
    const { stderr } = await billingWith(env, "accounts", "list");
    expect(stderr).toContain(`of the server running on ${dataDir} (pid ${process.pid})`);
  });

  it("opens the embedded database stored in DATA_DIR when no server runs there, and says so", async () => {
    const dataDir = await emptyDataDir();
    // What `pnpm start` leaves in DATA_DIR once stopped: its FerretDB files, with an account in the default database.
    const stored = await provisionDatabase({
      mongodbUri: undefined,
      dataDir,
      persistent: true,
      engine: "ferretdb",
      log: () => {},
    });
    const client = await connectMongo(stored.uri);
    const account = await createAccountRepository(client.db("billing")).create("Stored");
    await client.close();
    await stored.stop();

    const { stdout, stderr } = await billingWith({ DATA_DIR: dataDir }, "accounts", "list");
    expect(
      stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual([account]);
    expect(stderr).toContain(`using the database "billing" stored in ${join(dataDir, "ferretdb")} (no server running`);
  });

  it("refuses with exit code 2, creating nothing, when no server runs on DATA_DIR and none is stored", async () => {
    const dataDir = await emptyDataDir();
    for (const args of [["run"], ["accounts", "list"], ["accounts", "create", "Nowhere"]]) {
      const refusal = await billingWith({ DATA_DIR: dataDir }, ...args).catch((error) => error);
      expect(refusal).toMatchObject({ code: 2, stdout: "" });
      expect(refusal.stderr).toContain(`No database found: no server is running with DATA_DIR=${dataDir}`);
    }
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("refuses with exit code 2, creating nothing, when MONGODB_DB names a database the server never made", async () => {
    const absent = `absent_${Date.now()}`;
    const refusal = await billingWith({ MONGODB_URI: inject("mongodbUri"), MONGODB_DB: absent }, "run").catch(
      (error) => error,
    );
    expect(refusal).toMatchObject({ code: 2, stdout: "" });
    expect(refusal.stderr).toContain(`The database "${absent}" at MONGODB_URI`);
    expect(refusal.stderr).toContain("does not exist");
    const { databases } = await server.service.db.admin().listDatabases({ nameOnly: true });
    expect(databases.map((database) => database.name)).not.toContain(absent);
  });

  it("ends a usage error through pnpm at the repository root with the usage alone and exit code 2", async () => {
    const refusal = await run("pnpm", ["billing", "accounts"], { cwd: REPO_ROOT, env: baseEnv }).catch((e) => e);
    expect(refusal).toMatchObject({ code: 2, stdout: "" });
    expect(refusal.stderr).toMatch(/^Usage:\n/);
    expect(refusal.stderr).not.toMatch(/ELIFECYCLE|ERR_PNPM|failed/i);
  });
});
