import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { exportCreate } from "@billing/shared";
import { auditCli } from "./cli-audit.js";
import type { Logger } from "./logger.js";
import type { Repositories } from "./repositories/index.js";
import { createExport, createExportWritings, writeNextBatch } from "./services/exports/exports.js";

export const EXPORT_USAGE = `  billing export <accountId> --kind KIND --from ISO --to ISO [--format csv|ndjson|parquet]
                 [--out FILE]
                                     export as POST /exports does (KIND: invoices, invoice_lines, payments,
                                     credit_notes, ledger, events, revenue; default csv), written here batch by
                                     batch, then its file to FILE (default stdout); kept for GET /exports`;

type WithRepositories = <T>(work: (repositories: Repositories) => Promise<T>) => Promise<T>;

/** `--flag value` pairs → their values by flag; null when an argument is not such a pair of the known flags. */
function flagsOf(args: string[]): Record<string, string> | null {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (!flag?.startsWith("--") || value === undefined || flag.slice(2) in flags) return null;
    flags[flag.slice(2)] = value;
  }
  const known = ["kind", "from", "to", "format", "out"];
  return Object.keys(flags).every((flag) => known.includes(flag)) ? flags : null;
}

const written = (out: Writable, data: string | Buffer) =>
  new Promise<void>((resolve, reject) => out.write(data, (error) => (error ? reject(error) : resolve())));

/**
 * `billing export …`: the export `POST /exports` makes (same checks, same stored export, audited with actor `cli`),
 * written here to its end by the export worker's own batches (a running server's worker may write some of them: each
 * chunk is written once), then its file streamed out a few chunks at a time. Exit codes: 0 done, 1 no such account,
 * 2 bad arguments.
 */
export async function exportCommand(args: string[], withRepositories: WithRepositories, log: Logger) {
  const [accountId, ...rest] = args;
  const flags = accountId ? flagsOf(rest) : null;
  const { out: _out, ...fields } = flags ?? {};
  const input = flags && exportCreate.safeParse({ format: "csv", ...fields });
  if (!accountId || !flags || !input?.success) {
    const issues = input?.success === false ? input.error.issues : [];
    const reasons = issues.map((issue) => `--${issue.path.join(".")}: ${issue.message}`);
    console.error(
      `${reasons.join("\n") || "billing export needs an account and --kind, --from, --to"}\n${EXPORT_USAGE}`,
    );
    return 2;
  }
  return withRepositories(async (repositories) => {
    if (!(await repositories.accounts.exists(accountId))) {
      console.error(`No account has the id ${accountId}`);
      return 1;
    }
    const call = { repositories, accountId, log };
    const created = await createExport(call, input.data);
    const resource = { type: "export", id: created.id };
    await auditCli(repositories, accountId, "exports.create", { resource, references: [], changes: ["kind"] });
    const stored = await repositories.exports.get(accountId, created.id);
    const writings = createExportWritings();
    while (stored && (await writeNextBatch(call, stored, writings))) {
      // one batch (one chunk) at a time
    }
    const out = flags.out ? createWriteStream(flags.out) : process.stdout;
    for await (const chunk of repositories.exportChunks.inOrder(created.id))
      await written(out, input.data.format === "parquet" ? Buffer.from(chunk.text, "base64") : chunk.text);
    if (out !== process.stdout) await new Promise<void>((resolve) => out.end(resolve));
    const done = await repositories.exports.get(accountId, created.id);
    console.error(`[billing] export ${created.id}: ${done?.rows ?? 0} rows${flags.out ? ` in ${flags.out}` : ""}`);
    return 0;
  });
}
