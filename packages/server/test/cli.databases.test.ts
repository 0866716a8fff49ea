import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { connectMongo } from "../src/db/connect.js";
import { provisionDatabase, publishInstance } from "../src/db/provision.js";
import { createAccountRepository } from "../src/repositories/accounts.js";
import { baseEnv, operatorCli, REPO_ROOT, run } from "./support/cli.js";
import { useTestServer } from "./support/harness.js";

/**
 * Which database the operators' CLI opens (MONGODB_URI, the server running on DATA_DIR, the embedded database stored
 * there) and its refusals when there is none; split from cli.test.ts to keep each file under a minute in CI.
 */
const server = useTestServer();
const { billing, billingWith, emptyDataDir } = operatorCli(server);

describe("operator CLI: its database", () => {
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
