import { createBenchAccount } from "../api.js";
import { BATCH_SIZE, EVENTS_PER_HOUR, eventBatch, FIRST_EVENT_AT } from "../data.js";
import { formatCount, log, progress } from "../progress.js";
import { startServer } from "../server.js";
import { runConcurrently } from "../stats.js";

export interface ExportsResult {
  engine: string;
  runs: ExportRun[];
}

/** One export of N events: its time and rows, and the server's memory meanwhile. */
export interface ExportRun {
  events: number;
  format: "csv" | "parquet";
  rows: number;
  /** From `POST /exports` to `GET /exports/{id}` answering COMPLETED. */
  seconds: number;
  /** The file as `GET /exports/{id}/file` streamed it. */
  fileBytes: number;
  fileSeconds: number;
  /** Server RSS (VmRSS) just before `POST /exports`, and the highest sampled every 100 ms until the file is read. */
  rssBeforeMb: number;
  peakRssMb: number;
  databasePeakRssMb: number | undefined;
}

const SIZES = [100_000, 300_000];
/** As many calls as a token may have in flight (MAX_CALLS_IN_FLIGHT_PER_TOKEN): none waits for a slot (a 429 when
 * the machine is loaded and a slot is not freed within CALL_QUEUE_TIMEOUT_MS). */
const INGEST_CONCURRENCY = 2;
const SAMPLE_MS = 100;
const POLL_MS = 200;
/** The events export the issue names (1,000,000 events, server RSS under 350 MiB). */
export const EXPORT_RSS_LIMIT_MB = 350;
/**
 * The server's V8 heap ceiling here, as a deployment gives it (docs/decisions.md, "The server's heap"): on this
 * 23 GiB machine V8's own ceiling is about 4 GiB, and it leaves the export's garbage uncollected far longer than an
 * instance of 512 MiB would (peaks of 365 MiB at 1,000,000 events, the live heap about 60 MiB throughout).
 */
const SERVER_HEAP_MB = 256;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Section 19: the events export's memory (issue 49). For each N, a server of its own on a fresh database takes N
 * events through `POST /events` (batches of 1,000, as section 1), then exports them all as CSV, then as Parquet,
 * and streams each file; the server's RSS is sampled every 100 ms from `POST /exports` to the file's last byte.
 * Constant memory: the peak does not grow with N. (What a batch costs the database, three commands whatever N,
 * is held by test/exports.test.ts.)
 */
export async function benchExports(sizes = SIZES): Promise<ExportsResult> {
  const runs: ExportRun[] = [];
  let engine = "unknown";
  for (const events of sizes) {
    const server = await startServer({ NODE_OPTIONS: `--max-old-space-size=${SERVER_HEAP_MB}` });
    engine = server.engine;
    try {
      const api = await createBenchAccount(server.url, server.adminToken);
      const batches = Math.ceil(events / BATCH_SIZE);
      let sent = 0;
      await runConcurrently(batches, INGEST_CONCURRENCY, async (batch) => {
        await api.call("POST", "/events", { events: eventBatch(batch, 1000) });
        sent += BATCH_SIZE;
        progress(`exports: ${formatCount(sent)} / ${formatCount(events)} events ingested`);
      });
      const window = {
        from: new Date(FIRST_EVENT_AT).toISOString(),
        to: new Date(FIRST_EVENT_AT + Math.ceil(events / EVENTS_PER_HOUR + 1) * 3_600_000).toISOString(),
      };
      for (const format of ["csv", "parquet"] as const) {
        const rssBeforeMb = server.memory().rssMb;
        let peakRssMb = rssBeforeMb;
        let databasePeakRssMb: number | undefined;
        const sampler = setInterval(() => {
          peakRssMb = Math.max(peakRssMb, server.memory().rssMb);
          const database = server.databaseMemory();
          if (database) databasePeakRssMb = Math.max(databasePeakRssMb ?? 0, database.rssMb);
        }, SAMPLE_MS);
        try {
          const started = performance.now();
          const { export: created } = await api.call("POST", "/exports", { kind: "events", ...window, format }, 202);
          let done: { status: string; rows: number } = created;
          while (done.status !== "COMPLETED") {
            await sleep(POLL_MS);
            done = (await api.call("GET", `/exports/${created.id}`)).export;
            progress(`exports: ${format} of ${formatCount(events)} events, ${formatCount(done.rows)} rows written`);
          }
          const seconds = (performance.now() - started) / 1000;
          const fileStarted = performance.now();
          const fileBytes = await fileLength(server.url, api.token, created.id);
          const fileSeconds = (performance.now() - fileStarted) / 1000;
          if (done.rows !== events) throw new Error(`the ${format} export wrote ${done.rows} rows of ${events}`);
          const run: ExportRun = {
            events,
            format,
            rows: done.rows,
            seconds,
            fileBytes,
            fileSeconds,
            rssBeforeMb,
            peakRssMb,
            databasePeakRssMb,
          };
          log(`exports: ${JSON.stringify(run)}`);
          runs.push(run);
        } finally {
          clearInterval(sampler);
        }
      }
    } finally {
      await server.stop();
    }
  }
  return { engine, runs };
}

/** Reads the export's file to its end, counting its bytes (nothing kept). */
async function fileLength(url: string, token: string, exportId: string): Promise<number> {
  const response = await fetch(`${url}/exports/${exportId}/file`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200 || !response.body) throw new Error(`GET /exports/${exportId}/file: ${response.status}`);
  const reader = response.body.getReader();
  let bytes = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) bytes += part.value.byteLength;
  return bytes;
}

export function exportsMarkdown({ engine, runs }: ExportsResult): string[] {
  const peaks = runs.map(({ peakRssMb }) => peakRssMb);
  return [
    `Database: ${engine}. The events export (one account, N events over N/1,000 hours), CSV then Parquet, on a ` +
      "server of its own per N; server RSS sampled every 100 ms from `POST /exports` to the file's last byte.",
    "",
    "| events | format | rows | seconds | file MiB / seconds | server RSS before | peak | database peak |",
    "|---:|---|---:|---:|---:|---:|---:|---:|",
    ...runs.map(
      (run) =>
        `| ${formatCount(run.events)} | ${run.format} | ${formatCount(run.rows)} | ${run.seconds.toFixed(1)} | ` +
        `${(run.fileBytes / 2 ** 20).toFixed(1)} / ${run.fileSeconds.toFixed(1)} | ` +
        `${run.rssBeforeMb.toFixed(0)} MiB | ` +
        `**${run.peakRssMb.toFixed(0)} MiB** | ${run.databasePeakRssMb?.toFixed(0) ?? "–"} MiB |`,
    ),
    "",
    `Highest peak: ${Math.max(...peaks).toFixed(0)} MiB (limit ${EXPORT_RSS_LIMIT_MB} MiB).`,
  ];
}
