import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, cp, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The tiny Go main that embeds FerretDB (SQLite engine), kept in the repo with the edits its build applies. */
const TOOL_DIR = fileURLToPath(new URL("../../../../tools/ferretdb/", import.meta.url));
const TOOL_FILES = ["go.mod", "go.sum", "main.go", "patches.json"];

export type Log = (message: string) => void;

/** tools/ferretdb/patches.json: edits made to a copy of a module before the build (its `why` says what for). */
interface Patches {
  module: string;
  edits: { file: string; find: string; replace: string; count: number }[];
}

/** Binaries are cached outside the repo, keyed by the sources they were built from. */
export function ferretDbBinaryPath(): string {
  const hash = createHash("sha256");
  for (const file of TOOL_FILES) hash.update(readFileSync(join(TOOL_DIR, file)));
  const cacheRoot =
    process.env.BILLING_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "billing-service");
  return join(cacheRoot, `ferretdb-${hash.digest("hex").slice(0, 16)}`, "ferretdb-embedded");
}

/** Builds the FerretDB binary once with the machine's Go toolchain, showing progress while it runs. */
export async function ensureFerretDbBinary(log: Log): Promise<string> {
  const binary = ferretDbBinaryPath();
  if (existsSync(binary)) return binary;
  // Each build works in its own directory and renames its binary into place, so concurrent first runs cannot clash.
  const work = `${binary}.${process.pid}.build`;
  await mkdir(work, { recursive: true });
  log(`Building embedded FerretDB with Go (first run only; takes a few minutes) into ${binary}`);
  const started = Date.now();
  const heartbeat = setInterval(
    () => log(`  still building FerretDB (${Math.round((Date.now() - started) / 1000)} s)…`),
    15_000,
  );
  try {
    const modfile = await patchedModfile(work);
    await go(["build", "-trimpath", "-modfile", modfile, "-o", join(work, "ferretdb-embedded"), "."], log);
    await rename(join(work, "ferretdb-embedded"), binary);
  } finally {
    clearInterval(heartbeat);
    await rm(work, { recursive: true, force: true });
  }
  log(`Built FerretDB in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

/**
 * Copies the module the patches name from Go's module cache into `work`, applies each edit (refusing one that no
 * longer matches exactly as often as it says), and writes a go.mod that replaces the module by the copy.
 */
async function patchedModfile(work: string): Promise<string> {
  const patches = JSON.parse(readFileSync(join(TOOL_DIR, "patches.json"), "utf8")) as Patches;
  const source = join(work, "module");
  // `go mod download` fetches and unpacks the module when the cache lacks it (`go list -m` would answer no folder).
  const { Dir } = JSON.parse(await go(["mod", "download", "-json", patches.module])) as { Dir: string };
  await cp(Dir, source, { recursive: true });
  await makeWritable(source); // the module cache's files and folders are read-only, and so are their copies
  for (const { file, find, replace, count } of patches.edits) {
    const text = await readFile(join(source, file), "utf8");
    const found = text.split(find).length - 1;
    if (found !== count) throw new Error(`FerretDB patch for ${file} expects ${count} match(es), found ${found}`);
    await writeFile(join(source, file), text.replaceAll(find, replace));
  }
  const modfile = join(work, "go.mod");
  const original = readFileSync(join(TOOL_DIR, "go.mod"), "utf8");
  await writeFile(modfile, `${original}\nreplace ${patches.module} => ${source}\n`);
  await writeFile(join(work, "go.sum"), readFileSync(join(TOOL_DIR, "go.sum")));
  return modfile;
}

async function makeWritable(directory: string): Promise<void> {
  await chmod(directory, 0o755);
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) await makeWritable(path);
    else await chmod(path, 0o644);
  }
}

/** Runs `go` in the tool's folder, its stderr logged line by line; resolves with its stdout. */
function go(args: string[], log: Log = () => {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, { cwd: TOOL_DIR, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    createInterface({ input: child.stderr }).on("line", (line) => log(`  go: ${line}`));
    child.on("error", (error) =>
      reject(new Error(`cannot run the Go toolchain (is \`go\` on PATH?): ${error.message}`)),
    );
    child.on("exit", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`go ${args[0]} for FerretDB failed with exit code ${code}`)),
    );
  });
}
