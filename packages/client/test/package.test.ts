import { execFile } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_VERSION } from "../src/index.js";
import { newClient, useTestServer } from "./helpers.js";

const run = promisify(execFile);
const packageDir = new URL("..", import.meta.url).pathname;
const appFixtures = new URL("installed-app/", import.meta.url).pathname;
const workspaceRequire = createRequire(import.meta.url);
const tsc = workspaceRequire.resolve("typescript/bin/tsc");
/** The app's @types/node: the workspace's own version, so that an offline install finds it in the store. */
const TYPES_NODE: string = workspaceRequire("@types/node/package.json").version;
/** The outer `pnpm` run's settings (npm_config_*, npm_package_*) must not leak into the app's own pnpm. */
const appEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));

const context = useTestServer();
let appDir: string;

beforeAll(async () => {
  // Outside the workspace, so that nothing resolves to a workspace package or its node_modules.
  appDir = await mkdtemp(join(tmpdir(), "billing-client-app-"));
  await run("pnpm", ["pack", "--pack-destination", appDir], { cwd: packageDir, env: appEnv });
  const [tarball] = (await readdir(appDir)).filter((name) => name.endsWith(".tgz"));
  const manifest = {
    name: "installed-app",
    private: true,
    dependencies: { "@billing/client": `file:./${tarball}`, "@types/node": TYPES_NODE },
  };
  await writeFile(join(appDir, "package.json"), JSON.stringify(manifest));
  await cp(appFixtures, appDir, { recursive: true });
  // Offline: the package's only dependencies are in the pnpm store already, as its install by the workspace left them.
  await run("pnpm", ["install", "--offline"], { cwd: appDir, env: appEnv });
}, 300_000);
afterAll(() => rm(appDir, { recursive: true, force: true }));

describe("the packed SDK, installed into an app outside the workspace", () => {
  it("ships its built files and a manifest naming no workspace package", async () => {
    const installed = join(appDir, "node_modules", "@billing", "client");
    const manifest = JSON.parse(await readFile(join(installed, "package.json"), "utf8"));
    expect(manifest.private).toBeUndefined();
    // tRPC is bundled into dist/: its client names `typescript` as a peer, which would come with it into every app.
    expect(Object.keys(manifest.dependencies)).toEqual(["zod"]);
    expect(manifest.peerDependencies).toBeUndefined();
    expect((await readdir(join(installed, "dist"))).sort()).toEqual([
      "LICENSE-trpc.txt",
      "index.cjs",
      "index.d.cts",
      "index.d.ts",
      "index.js",
    ]);
    expect(await readdir(join(appDir, "node_modules", "@billing"))).toEqual(["client"]);
  });

  it("installs no TypeScript and no tRPC into the app", async () => {
    const installed = await readdir(join(appDir, "node_modules", ".pnpm"));
    expect(installed.filter((name) => /^(typescript|@typescript\+|@trpc\+)/.test(name))).toEqual([]);
    expect(installed.filter((name) => /^zod@/.test(name))).toHaveLength(1);
    expect((await readdir(join(appDir, "node_modules"))).filter((name) => name.includes("typescript"))).toEqual([]);
  });

  it.each([
    ["ESM", "app.mjs", "ESM app"],
    ["CommonJS", "app.cjs", "CJS app"],
  ])("runs with plain node as %s against a live server", async (_kind, script, name) => {
    const { client, token } = await newClient(context.server);
    const env = { ...appEnv, BILLING_URL: context.server.url, BILLING_TOKEN: token };
    const { stdout } = await run(process.execPath, [script], { cwd: appDir, env });
    const printed = JSON.parse(stdout);
    expect(printed).toEqual({
      apiVersion: API_VERSION,
      customerId: expect.any(String),
      names: [name],
      refusedFields: ["name"],
    });
    expect((await client.customers.get(printed.customerId)).name).toBe(name);
  });

  it.each(["node16", "bundler"])(
    "type-checks both apps with moduleResolution %s",
    async (resolution) => {
      const errors = await run(process.execPath, [tsc, "-p", `tsconfig.${resolution}.json`], { cwd: appDir }).then(
        () => "",
        (error: { stdout: string }) => error.stdout,
      );
      expect(errors).toBe("");
    },
    120_000,
  );
});
