import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { configSchema, loadConfig } from "../src/config.js";

const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const ENV_EXAMPLE = fileURLToPath(new URL("../../../.env.example", import.meta.url));

/** `NAME=value` lines of .env.example (comments skipped). */
async function exampleVariables(): Promise<Record<string, string>> {
  const lines = (await readFile(ENV_EXAMPLE, "utf8")).split("\n").filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
}

describe("configuration", () => {
  it("refuses to start on bad values, naming each variable, before opening anything", async () => {
    const started = run("npx", ["tsx", "src/main.ts"], {
      cwd: SERVER_DIR,
      env: {
        ...process.env,
        PORT: "abc",
        LOG_LEVEL: "chatty",
        SHUTDOWN_TIMEOUT_MS: "-1",
        MONGODB_DB: "no spaces",
        WEBHOOK_SECRET_KEYS: "short",
        BILLING_SCHEDULER: "sometimes",
        BILLING_SCHEDULER_INTERVAL: "0.5",
      },
    });
    const failure = await started.then(
      () => expect.fail("the server started"),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure.code).toBe(1);
    expect(failure.stdout).toBe("");
    const named = ["PORT", "LOG_LEVEL", "SHUTDOWN_TIMEOUT_MS", "MONGODB_DB", "WEBHOOK_SECRET_KEYS"];
    for (const variable of [...named, "BILLING_SCHEDULER", "BILLING_SCHEDULER_INTERVAL"]) {
      expect(failure.stderr).toMatch(new RegExp(`^  ${variable}: `, "m"));
    }
  });

  it("defaults to info logs and a 10 s shutdown grace period", () => {
    expect(loadConfig({})).toMatchObject({ LOG_LEVEL: "info", SHUTDOWN_TIMEOUT_MS: 10_000 });
    expect(loadConfig({ LOG_LEVEL: "silent", SHUTDOWN_TIMEOUT_MS: "0" })).toMatchObject({
      LOG_LEVEL: "silent",
      SHUTDOWN_TIMEOUT_MS: 0,
    });
  });

  it("runs the billing scheduler every 60 s by default, and refuses an interval under a second", () => {
    expect(loadConfig({})).toMatchObject({ BILLING_SCHEDULER: true, BILLING_SCHEDULER_INTERVAL: 60 });
    expect(loadConfig({ BILLING_SCHEDULER: "false", BILLING_SCHEDULER_INTERVAL: "5" })).toMatchObject({
      BILLING_SCHEDULER: false,
      BILLING_SCHEDULER_INTERVAL: 5,
    });
    const refused = configSchema.safeParse({ BILLING_SCHEDULER_INTERVAL: "0" });
    expect(refused.error?.issues).toMatchObject([
      { path: ["BILLING_SCHEDULER_INTERVAL"], message: "must be at least 1 second" },
    ]);
  });

  it(".env.example lists every variable, with the defaults the service really uses", async () => {
    const example = await exampleVariables();
    expect(Object.keys(example).sort()).toEqual(Object.keys(configSchema.shape).sort());
    expect(loadConfig(example)).toEqual(loadConfig({}));
  });
});
