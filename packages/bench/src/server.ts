import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { REPO_ROOT } from "./options.js";
import { log } from "./progress.js";

export interface ServerUnderTest {
  url: string;
  pid: number;
  adminToken: string;
  /** As the server reports it at start-up, e.g. "embedded FerretDB 1.24 (SQLite engine)". */
  engine: string;
  /** The server's embedded database, for the raw-driver baselines. */
  databaseUri: string;
  databaseName: string;
  /** The server process's own memory (not its database's), in MiB. */
  memory(): { rssMb: number; peakRssMb: number };
  /** The embedded database process's memory, in MiB, when it is a child of the server. */
  databaseMemory(): { rssMb: number; peakRssMb: number } | undefined;
  stop(): Promise<void>;
}

/** The embedded engine the benchmark's databases run on: EMBEDDED_DB's, FerretDB unless it says otherwise. */
export function embeddedEngine(): "auto" | "mongodb-memory-server" | "ferretdb" {
  const named = process.env.EMBEDDED_DB ?? "ferretdb";
  if (named !== "auto" && named !== "mongodb-memory-server" && named !== "ferretdb")
    throw new Error(`EMBEDDED_DB=${named}: expected auto, mongodb-memory-server or ferretdb`);
  return named;
}

const START_TIMEOUT_MS = 15 * 60_000; // the first run builds FerretDB with Go
/** The database the servers under test use (MONGODB_DB): a section that reads it directly names it so. */
export const DATABASE_NAME = "billing";

function readMemory(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kib("VmRSS") / 1024, peakRssMb: kib("VmHWM") / 1024 };
}

function parseLogLine(line: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { msg: line };
  }
}

/** The first few internal errors in full (their cause is the finding), then only a count every hundred. */
let serverErrors = 0;
function reportServerError(entry: Record<string, unknown>) {
  const err = entry.err as { message?: string; stack?: string } | undefined;
  if (!err) return; // the request log's "request failed" line of the same error
  serverErrors += 1;
  const where = err.stack
    ?.split("\n")
    .find((line) => line.includes("/packages/server/src/"))
    ?.trim();
  if (serverErrors <= 3) log(`server error ${serverErrors}: ${err.message?.slice(0, 300)} ${where ?? ""}`);
  else if (serverErrors % 100 === 0) log(`${serverErrors} server errors so far`);
}

export function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/**
 * `pnpm start`'s entry point as a child process of its own (so that its RSS is the server's alone), on a fresh
 * data folder, with the admin API enabled by a random token. EMBEDDED_DB picks the engine (default FerretDB).
 * `settings` are added to its environment.
 */
export async function startServer(settings: NodeJS.ProcessEnv = {}): Promise<ServerUnderTest> {
  const dataDir = await mkdtemp(join(tmpdir(), "billing-bench-"));
  const adminToken = randomBytes(24).toString("hex");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    EMBEDDED_DB: embeddedEngine(),
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    HOST: "127.0.0.1",
    PORT: "0",
    MONGODB_DB: DATABASE_NAME,
    NODE_ENV: "production",
    // Rate limiting stays on (its cost is part of every request) with limits the benchmark never reaches.
    RATE_LIMIT_PER_MINUTE: "1000000000",
    RATE_LIMIT_INGEST_PER_MINUTE: "1000000000",
    // Section 9's webhook endpoint is the benchmark's own receiver, on 127.0.0.1 over http.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    // The sections bill at chosen moments and time their own runs: a background run would change both.
    BILLING_SCHEDULER: "false",
    ...settings,
  };
  delete env.MONGODB_URI;

  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: join(REPO_ROOT, "packages/server"),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let stopping = false;
  const recentErrors: string[] = [];
  // stderr carries only what the server shows a person (the first account's token, which the benchmark does not use).
  createInterface({ input: child.stderr }).on("line", (line) => {
    recentErrors.push(line);
    if (recentErrors.length > 40) recentErrors.shift();
  });
  void exited.then((code) => {
    if (!stopping) {
      log(`the server exited unexpectedly (code ${code}); its last stderr lines:\n${recentErrors.join("\n")}`);
      process.exit(1);
    }
  });

  // The server logs one JSON object per line on stdout: read the start-up facts, show errors, drain the rest.
  const { url, engine } = await new Promise<{ url: string; engine: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the server did not start in time")), START_TIMEOUT_MS);
    let engineName = "unknown";
    let listening = false;
    createInterface({ input: child.stdout }).on("line", (line) => {
      const isError = /"level":(5|6)\d/.test(line);
      if (listening && !isError) return;
      const entry = parseLogLine(line);
      if (isError) reportServerError(entry);
      else if (entry.msg === "database ready") engineName = String(entry.engine);
      else if (typeof entry.msg === "string" && entry.msg.startsWith("listening")) {
        listening = true;
        clearTimeout(timer);
        resolve({ url: String(entry.url), engine: engineName });
      } else if (typeof entry.msg === "string" && /FerretDB|mongodb-memory-server/.test(entry.msg)) {
        log(`server: ${entry.msg}`); // the first run's Go build shows its progress here
      }
    });
  });
  const { uri: databaseUri } = JSON.parse(await readFile(join(dataDir, "instance.json"), "utf8")) as { uri: string };

  return {
    url,
    pid: child.pid!,
    adminToken,
    engine,
    databaseUri,
    databaseName: DATABASE_NAME,
    memory: () => readMemory(child.pid!),
    databaseMemory() {
      const [databasePid] = childPids(child.pid!);
      return databasePid === undefined ? undefined : readMemory(databasePid);
    },
    async stop() {
      stopping = true;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(killer);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The database commands the server has sent so far answering calls (`request`), or for `origin` (`webhooks`: the
 * webhook worker's): its /metrics, open without METRICS_TOKEN.
 */
export async function commandsSent(serverUrl: string, origin = "request"): Promise<number> {
  const text = await (await fetch(`${serverUrl}/metrics`)).text();
  const sample = new RegExp(`^billing_db_commands_total\\{origin="${origin}"\\} (\\d+)$`, "m").exec(text);
  return Number(sample?.[1] ?? 0);
}
