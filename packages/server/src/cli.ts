import type { BillingRun } from "@billing/shared";
import { auditCli } from "./cli-audit.js";
import { NoDatabaseError, openCliDatabase } from "./cli-database.js";
import { EXPORT_USAGE, exportCommand } from "./cli-export.js";
import { TOKENS_USAGE, tokensCommand } from "./cli-tokens.js";
import { type Config, loadConfig } from "./config.js";
import { billingRunSubject } from "./domain/audit.js";
import { createLogger, type Logger } from "./logger.js";
import { createRepositories, ensureIndexes, type Repositories } from "./repositories/index.js";
import { assertNotInFuture, runBilling } from "./services/billing/run.js";

const USAGE = `Usage:
  billing accounts create <name>     create an account and print its first token
  billing accounts list              print every account (id, name, createdAt), one JSON line each, oldest first
${TOKENS_USAGE}
  billing run [--at ISO]             generate every invoice due up to --at (default now, never later), for every account
                                     but test accounts (their clocks' advances bill them)
${EXPORT_USAGE}

Uses MONGODB_URI and MONGODB_DB when set, else the embedded database in DATA_DIR: the running server's, or the one
stored there. It says which on stderr, and never creates one: with none found it stops with exit code 2.`;

const log = (message: string) => console.error(`[billing] ${message}`);

async function withRepositories<T>(work: (repositories: Repositories, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openCliDatabase(config, log);
  log(`using the ${database.description}`);
  try {
    const db = database.client.db(config.MONGODB_DB);
    const repositories = createRepositories(db, {
      sealingKeys: config.WEBHOOK_SECRET_KEYS,
      auditRetentionDays: config.AUDIT_RETENTION_DAYS,
    });
    await ensureIndexes(repositories);
    return await work(repositories, config);
  } finally {
    await database.close();
  }
}

/** Calls the account's billing run until nothing is left due, with progress on stderr; one summary of the calls. */
async function runAccountToEnd(
  repositories: Repositories,
  accountId: string,
  at: Date,
  failureLog: Logger,
  timing: { graceMs: number; draftMs: number },
) {
  const total: BillingRun = {
    at: at.toISOString(),
    contractsBilled: 0,
    invoicesCreated: 0,
    invoiceIds: [],
    failures: [],
    hasMore: true,
  };
  for (let call = 1; total.hasMore; call += 1) {
    const run = await runBilling(repositories, accountId, at, failureLog, timing);
    total.contractsBilled += run.contractsBilled;
    total.invoiceIds.push(...run.invoiceIds);
    total.failures.push(...run.failures);
    total.hasMore = run.hasMore;
    total.invoicesCreated = total.invoiceIds.length;
    if (run.hasMore || call > 1)
      log(
        `account ${accountId}: call ${call}, ${total.invoicesCreated} invoices so ` +
          `far${run.hasMore ? ", more due…" : ", done"}`,
      );
  }
  return total;
}

/** `[--at ISO]` → the moment to bill as of (now when absent), or undefined when the value is not a date-time. */
function parseAt(args: string[]): Date | undefined {
  if (args.length === 0) return new Date();
  const [flag, value] = args;
  const at = flag === "--at" && value && args.length === 2 ? new Date(value) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at : undefined;
}

async function run(args: string[]): Promise<number> {
  const [resource, action, argument] = args;
  if (resource === "accounts" && action === "create" && argument) {
    return withRepositories(async (repositories) => {
      const { accounts, tokens } = repositories;
      const account = await accounts.create(argument);
      const { tokenId, token } = await tokens.create(account.id);
      const resource = { type: "account", id: account.id };
      await auditCli(repositories, account.id, "accounts.create", { resource, references: [], changes: ["name"] });
      console.log(JSON.stringify({ account, tokenId, token }, null, 2));
      return 0;
    });
  }
  if (resource === "accounts" && action === "list" && args.length === 2) {
    return withRepositories(async ({ accounts }) => {
      for await (const account of accounts.list()) console.log(JSON.stringify(account));
      return 0;
    });
  }
  if (resource === "tokens") {
    const exitCode = await tokensCommand(args.slice(1), withRepositories);
    if (exitCode !== undefined) return exitCode;
  }
  if (resource === "export")
    return exportCommand(args.slice(1), withRepositories, createLogger("error", process.stderr));
  if (resource === "run") {
    const at = parseAt(args.slice(1));
    if (!at) {
      console.error(`--at needs an ISO date-time, e.g. --at 2026-12-01T00:00:00Z\n\n${USAGE}`);
      return 2;
    }
    try {
      assertNotInFuture(at, new Date());
    } catch (error) {
      console.error(`--at ${at.toISOString()}: ${(error as Error).message}`);
      return 2;
    }
    return withRepositories(async (repositories, config) => {
      // Why an invoice could not be made (with the stack), as JSON lines on stderr: stdout holds the runs.
      const failureLog = createLogger(config.LOG_LEVEL, process.stderr);
      const totals = { accounts: 0, invoices: 0, failures: 0 };
      for await (const accountId of repositories.accounts.ids()) {
        // A test account is billed by advancing its clock (POST /test-clock/advance), never on real time.
        if (await repositories.accounts.testClockOf(accountId)) continue;
        const run = await runAccountToEnd(repositories, accountId, at, failureLog, {
          graceMs: config.BILLING_GRACE_PERIOD * 1000,
          draftMs: config.INVOICE_DRAFT_PERIOD * 1000,
        });
        if (run.invoicesCreated > 0) {
          await auditCli(repositories, accountId, "billing.run", billingRunSubject(run.invoiceIds));
        }
        totals.accounts += 1;
        totals.invoices += run.invoicesCreated;
        totals.failures += run.failures.length;
        console.log(JSON.stringify({ accountId, ...run }));
      }
      // Also when there was nothing to bill: an empty stdout alone would not tell "no account" from "not run".
      const { accounts, invoices, failures } = totals;
      log(`billed ${accounts} accounts up to ${at.toISOString()}: ${invoices} invoices, ${failures} failures`);
      return failures === 0 ? 0 : 1;
    });
  }
  console.error(USAGE);
  // Only asking for the usage succeeds: no command at all is a usage error like a wrong one.
  return args[0] === "--help" ? 0 : 2;
}

/** `run`, with a missing database told in a sentence (exit code 2) rather than a stack trace. */
async function main(args: string[]): Promise<number> {
  try {
    return await run(args);
  } catch (error) {
    if (!(error instanceof NoDatabaseError)) throw error;
    log(error.message);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
