// `pnpm test [vitest filters…]`: every package's test script in turn, each to its end whatever the others did, then
// where the time went (each package, the slowest files) and one line counting every test of the workspace. Exits 1
// when any test failed or any run failed outside its tests.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: { name: string; startTime: number; endTime: number }[];
}

/** Files slower than this say why in their header, on a line starting `Slow:` (a new slow file costs everyone). */
const SLOW_FILE_MS = 60_000;
const SLOWEST_SHOWN = 10;

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

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
let passed = 0;
let failed = 0;
const lines: string[] = [];
const files: { name: string; ms: number }[] = [];
const started = Date.now();
for (const { name } of packages) {
  const report = join(reports, `${name.replace(/\W/g, "_")}.json`);
  const packageStarted = Date.now();
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
    { cwd: root, stdio: "inherit" },
  );
  let counts: VitestReport | undefined;
  try {
    counts = JSON.parse(readFileSync(report, "utf8")) as VitestReport;
  } catch {
    counts = undefined;
  }
  for (const file of counts?.testResults ?? []) {
    files.push({ name: relative(root, file.name), ms: file.endTime - file.startTime });
  }
  // A run that failed without a failing test (a set-up error, a type error of a type test) counts as one failure.
  const packageFailed = counts ? counts.numFailedTests + (run.status !== 0 && counts.numFailedTests === 0 ? 1 : 0) : 1;
  passed += counts?.numPassedTests ?? 0;
  failed += packageFailed;
  lines.push(
    `${name}: ${counts?.numPassedTests ?? 0} passed, ${packageFailed} ` +
      `failed${counts ? "" : " (no test report: the run failed)"} in ${seconds(Date.now() - packageStarted)}`,
  );
}
rmSync(reports, { recursive: true, force: true });

const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN);
const unexplained = files
  .filter(({ name, ms }) => ms > SLOW_FILE_MS && !/^\s*(\/\/|\*|\/\*\*?)\s*Slow:/m.test(headerOf(name)))
  .map(({ name }) => name);
console.log(`\nThe ${slowest.length} slowest test files (vitest's own time of each, workers running side by side):`);
for (const { name, ms } of slowest) console.log(`  ${seconds(ms).padStart(8)}  ${name}`);
if (unexplained.length > 0) {
  console.log(`Over ${SLOW_FILE_MS / 1000} s with no "Slow:" line in the header saying why: ${unexplained.join(", ")}`);
}
console.log(`\n${lines.join("\n")}\nAll packages in ${seconds(Date.now() - started)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/** The comment block a test file opens with (its first 40 lines). */
function headerOf(file: string) {
  try {
    return readFileSync(join(root, file), "utf8").split("\n").slice(0, 40).join("\n");
  } catch {
    return "";
  }
}
