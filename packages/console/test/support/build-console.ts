// Vitest's global set-up: the tests drive the built console, so it is built first when missing or older than its
// sources (a clean clone, or a change since the last build).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function buildConsole() {
  execFileSync(process.execPath, [join(import.meta.dirname, "..", "..", "scripts", "build-if-stale.mjs")], {
    stdio: "inherit",
  });
}
