// `pnpm start` and the console's tests: build the console when a clean clone has no build yet. A build that exists
// is kept as it is (`pnpm --filter @billing/console build` rebuilds it after a change).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
if (!existsSync(join(root, "dist", "index.html"))) {
  console.log("[console] no build yet: building packages/console (once)");
  const run = spawnSync("pnpm", ["exec", "vite", "build", "--logLevel", "warn"], { cwd: root, stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
