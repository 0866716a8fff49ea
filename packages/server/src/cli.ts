#!/usr/bin/env -S npx tsx
import { MongoClient } from "mongodb";
import { loadConfig } from "./config.js";
import { findRunningInstance, provisionDatabase } from "./db/provision.js";
import { createRepositories, ensureIndexes, type Repositories } from "./repositories/index.js";

const USAGE = `Usage:
  billing accounts create <name>     create an account and print its first token
  billing tokens create <accountId>  create another token for an account and print it

Uses MONGODB_URI when set, else the embedded database of \`pnpm start\` (the running one, if any).`;

const log = (message: string) => console.error(`[billing] ${message}`);

async function withRepositories<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const running = config.MONGODB_URI ? undefined : await findRunningInstance(config.DATA_DIR);
  const database = running
    ? { uri: running, stop: async () => {} }
    : await provisionDatabase({ mongodbUri: config.MONGODB_URI, dataDir: config.DATA_DIR, persistent: true, engine: config.EMBEDDED_DB, log });
  const client = await MongoClient.connect(database.uri);
  try {
    const repositories = createRepositories(client.db(config.MONGODB_DB));
    await ensureIndexes(repositories);
    return await work(repositories);
  } finally {
    await client.close();
    await database.stop();
  }
}

async function run(args: string[]): Promise<number> {
  const [resource, action, argument] = args;
  if (resource === "accounts" && action === "create" && argument) {
    return withRepositories(async ({ accounts, tokens }) => {
      const account = await accounts.create(argument);
      const { tokenId, token } = await tokens.create(account.id);
      console.log(JSON.stringify({ account, tokenId, token }, null, 2));
      return 0;
    });
  }
  if (resource === "tokens" && action === "create" && argument) {
    return withRepositories(async ({ accounts, tokens }) => {
      if (!(await accounts.exists(argument))) {
        console.error(`No account has the id ${argument}`);
        return 1;
      }
      console.log(JSON.stringify(await tokens.create(argument), null, 2));
      return 0;
    });
  }
  console.error(USAGE);
  return args.length === 0 || args[0] === "--help" ? 0 : 2;
}

process.exitCode = await run(process.argv.slice(2));
