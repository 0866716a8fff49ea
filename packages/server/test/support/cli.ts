import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, inject } from "vitest";
import type { TestServer } from "./server.js";

/** The operators' CLI (`pnpm billing …`) run as a child process, as an operator runs it. */
export const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL("../..", import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL("../../../..", import.meta.url));

/** The environment without the database settings, which each test sets as an operator would. */
const { MONGODB_URI: _uri, MONGODB_DB: _db, DATA_DIR: _dataDir, ...withoutDatabase } = process.env;
export const baseEnv = withoutDatabase;

/**
 * The CLI of a test file: `billingWith(env, …args)` with `env` on top of no database settings, `billing(…args)`
 * against the test server's database, and `emptyDataDir()`: a DATA_DIR of the file's own, removed after it.
 */
export function operatorCli(server: TestServer) {
  const dataDirs: string[] = [];
  afterAll(() => Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true }))));
  const billingWith = (env: NodeJS.ProcessEnv, ...args: string[]) =>
    run("npx", ["tsx", "src/cli.ts", ...args], { cwd: SERVER_DIR, env: { ...baseEnv, ...env } });
  return {
    billingWith,
    billing: (...args: string[]) =>
      billingWith({ MONGODB_URI: inject("mongodbUri"), MONGODB_DB: server.service.db.databaseName }, ...args),
    async emptyDataDir() {
      const dir = await mkdtemp(join(tmpdir(), "billing-cli-data-"));
      dataDirs.push(dir);
      return dir;
    },
  };
}
