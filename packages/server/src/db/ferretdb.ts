import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The tiny Go main that embeds FerretDB (SQLite engine), kept in the repo. */
const TOOL_DIR = fileURLToPath(new URL("../../../../tools/ferretdb/", import.meta.url));
const TOOL_FILES = ["go.mod", "go.sum", "main.go"];

export type Log = (message: string) => void;

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
  await mkdir(join(binary, ".."), { recursive: true });
  // Each build writes its own file and renames it into place, so concurrent first runs cannot clash.
  const partial = `${binary}.${process.pid}.partial`;
  log(`Building embedded FerretDB with Go (first run only; takes a few minutes) into ${binary}`);
  const started = Date.now();
  const heartbeat = setInterval(
    () => log(`  still building FerretDB (${Math.round((Date.now() - started) / 1000)} s)…`),
    15_000,
  );
  try {
    await new Promise<void>((resolve, reject) => {
      const go = spawn("go", ["build", "-trimpath", "-o", partial, "."], {
        cwd: TOOL_DIR,
        stdio: ["ignore", "inherit", "pipe"],
      });
      createInterface({ input: go.stderr }).on("line", (line) => log(`  go: ${line}`));
      go.on("error", (error) =>
        reject(new Error(`cannot run the Go toolchain (is \`go\` on PATH?): ${error.message}`)),
      );
      go.on("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`go build of FerretDB failed with exit code ${code}`)),
      );
    });
    await rename(partial, binary);
  } finally {
    clearInterval(heartbeat);
    await rm(partial, { force: true });
  }
  log(`Built FerretDB in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

export interface RunningFerretDb {
  uri: string;
  stop(): Promise<void>;
}

/** The longest Unix socket path every platform takes (`sun_path` is 104 bytes on macOS, 108 on Linux). */
const MAX_SOCKET_PATH_BYTES = 100;

/**
 * Where FerretDB listens: a Unix socket in its data folder (the driver's commands then skip loopback TCP: docs/
 * decisions.md, "The embedded FerretDB over a Unix socket"), or a free loopback port when that path is too long.
 */
async function listenArgs(dataDir: string): Promise<string[]> {
  const socket = join(dataDir, "ferretdb.sock");
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) return ["--listen", "127.0.0.1:0"];
  await rm(socket, { force: true }); // left by a FerretDB that was killed: listening on it would fail
  return ["--unix", socket];
}

/**
 * Starts FerretDB (listenArgs); it exits by itself if this process dies (its stdin closes). An exit that `stop` did
 * not ask for is logged with the end of its stderr: every later call would only say "connection refused".
 */
export async function startFerretDb(binary: string, dataDir: string, log: Log): Promise<RunningFerretDb> {
  const listen = await listenArgs(dataDir);
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...listen, "--data", dataDir], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    const timeout = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`FerretDB did not start within 30 s: ${stderr}`));
    }, 30_000);
    child.once("error", (error) => reject(error));
    child.once("exit", (code) => reject(new Error(`FerretDB exited with code ${code}: ${stderr}`)));
    let stopping = false;
    child.once("exit", (code, signal) => {
      if (!stopping) log(`FerretDB exited unexpectedly (code ${code}, signal ${signal}): ${stderr}`);
    });
    createInterface({ input: child.stdout }).once("line", (uri) => {
      clearTimeout(timeout);
      resolve({
        uri: uri.trim(),
        async stop() {
          stopping = true;
          child.stdin.end();
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
  });
}
