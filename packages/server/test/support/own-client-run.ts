import { type CommandStartedEvent, MongoClient } from "mongodb";
import { inject } from "vitest";
import { createLogger } from "../../src/logger.js";
import { createRepositories } from "../../src/repositories/index.js";
import { RUN_LIMITS, type RunLimits, runBilling } from "../../src/services/billing/run.js";
import type { TestServer } from "./server.js";

/**
 * One call of the billing engine at `at` (no grace, no draft period, RUN_LIMITS but for `limits`) on a client of its
 * own, on the service's database: a second instance racing the service's, or a run whose commands a test counts
 * (`commands`, every one the call sent, in order).
 */
export async function runOnOwnClient(
  server: TestServer,
  accountId: string,
  at: string,
  limits: Partial<RunLimits> = {},
) {
  const client = await MongoClient.connect(inject("mongodbUri"), { monitorCommands: true });
  const commands: CommandStartedEvent[] = [];
  client.on("commandStarted", (event) => commands.push(event));
  try {
    const repositories = createRepositories(client.db(server.service.db.databaseName));
    const options = { graceMs: 0, draftMs: 0, limits: { ...RUN_LIMITS, ...limits } };
    const run = await runBilling(repositories, accountId, new Date(at), createLogger("silent"), options);
    return { run, commands };
  } finally {
    await client.close();
  }
}
