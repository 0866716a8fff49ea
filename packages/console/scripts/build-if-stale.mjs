// `pnpm start` and the console's tests (their global set-up): build the console when it has no build yet (a clean
// clone) or when a source file changed after the last build, so that neither serves or tests a stale console.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const built = join(root, "dist", "index.html");
const sources = [
  join(root, "index.html"),
  join(root, "vite.config.ts"),
  ...readdirSync(join(root, "src"), { recursive: true }).map((file) => join(root, "src", String(file))),
];
const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
const changed = sources.find((file) => statSync(file).mtimeMs > builtAt);
if (changed) {
  console.log(`[console] ${builtAt === 0 ? "no build yet" : `${changed} changed`}: building packages/console`);
  // NODE_ENV set by the caller (vitest sets `test`) would make Vite bundle React's development build.
  const env = { ...process.env, NODE_ENV: "production" };
  const run = spawnSync("pnpm", ["exec", "vite", "build", "--logLevel", "warn"], { cwd: root, stdio: "inherit", env });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
