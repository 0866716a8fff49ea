import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Log } from "./ferretdb-build.js";

export interface RunningFerretDb {
  uri: string;
  stop(): Promise<void>;
}

/**
 * Starts FerretDB on a free loopback port; it exits by itself if this process dies (its stdin closes). An exit that
 * `stop` did not ask for is logged with the end of its stderr: every later call would only say "connection refused".
 */
export function startFerretDb(binary: string, dataDir: string, log: Log): Promise<RunningFerretDb> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ["--listen", "127.0.0.1:0", "--data", dataDir], { stdio: ["pipe", "pipe", "pipe"] });
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
