// `pnpm test [vitest filters…]`: every package's test script in turn, each to its end whatever the others did, then
// one line counting every test of the workspace. Exits 1 when any test failed or any run failed outside its tests.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
}

const root = join(import.meta.dirname, "..");
const reports = mkdtempSync(join(tmpdir(), "billing-test-"));
// Filters (e.g. `pnpm test docs`) go to every package's vitest; a package with no matching file then passes.
const filters = process.argv.slice(2);
const filterOptions = filters.length > 0 ? [...filters, "--passWithNoTests"] : [];

const packages = readdirSync(join(root, "packages"))
  .sort()
  .map(
    (folder) =>
      JSON.parse(readFileSync(join(root, "packages", folder, "package.json"), "utf8")) as {
        name: string;
        scripts?: Record<string, string>;
      },
  )
  .filter((manifest) => manifest.scripts?.test);

let passed = 0;
let failed = 0;
const lines: string[] = [];
for (const { name } of packages) {
  const report = join(reports, `${name.replace(/\W/g, "_")}.json`);
  // The JSON reporter beside the default one: its counts are read below instead of scraping the console.
  const run = spawnSync(
    "pnpm",
    [
      "--filter",
      name,
      "test",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
      ...filterOptions,
    ],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
  let counts: VitestReport | undefined;
  try {
    counts = JSON.parse(readFileSync(report, "utf8")) as VitestReport;
  } catch {
    counts = undefined;
  }
  // A run that failed without a failing test (a set-up error, a type error of a type test) counts as one failure.
  const packageFailed = counts ? counts.numFailedTests + (run.status !== 0 && counts.numFailedTests === 0 ? 1 : 0) : 1;
  passed += counts?.numPassedTests ?? 0;
  failed += packageFailed;
  lines.push(
    `${name}: ${counts?.numPassedTests ?? 0} passed, ${packageFailed} ` +
      `failed${counts ? "" : " (no test report: the run failed)"}`,
  );
}
rmSync(reports, { recursive: true, force: true });

console.log(`\n${lines.join("\n")}\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
