import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { startTestServer, type TestServer } from "./support/server.js";

const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

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

  it("refuses an unknown account and unknown commands with a non-zero exit", async () => {
    await expect(billing("tokens", "create", "0123456789abcdef01234567")).rejects.toMatchObject({ code: 1 });
    await expect(billing("accounts", "remove", "x")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("Usage") });
  });
});
