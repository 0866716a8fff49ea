import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Log } from "./ferretdb-build.js";

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
