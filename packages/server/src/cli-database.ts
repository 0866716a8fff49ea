import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import type { Config } from "./config.js";
import { connectMongo, withoutCredentials } from "./db/connect.js";
import type { Log } from "./db/ferretdb-build.js";
import { type EmbeddedEngine, findRunningInstance, provisionDatabase } from "./db/provision.js";

/** The database the operator CLI works on, connected; `description` says which one it is. */
export interface CliDatabase {
  client: MongoClient;
  description: string;
  close(): Promise<void>;
}

/** Why the CLI found no database to work on: it never creates one (exit code 2). */
export class NoDatabaseError extends Error {
  override readonly name = "NoDatabaseError";
}

/** The sub-folder of DATA_DIR each embedded engine keeps its files in (see `provisionDatabase`). */
const ENGINE_FOLDERS = { "mongodb-memory-server": "mongod", ferretdb: "ferretdb" } as const;

const hasFiles = (folder: string) =>
  readdir(folder).then(
    (names) => names.length > 0,
    () => false,
  );

/** The embedded engine whose files DATA_DIR holds (the one `EMBEDDED_DB` names, else the first found), if any. */
async function storedEngine(dataDir: string, wanted: EmbeddedEngine): Promise<Exclude<EmbeddedEngine, "auto">> {
  const engines = wanted === "auto" ? (["mongodb-memory-server", "ferretdb"] as const) : [wanted];
  for (const engine of engines) if (await hasFiles(join(dataDir, ENGINE_FOLDERS[engine]))) return engine;
  throw new NoDatabaseError(
    `No database found: no server is running with DATA_DIR=${dataDir}, and no database is stored there.\n` +
      "Run the command with the server's DATA_DIR (or its MONGODB_URI and MONGODB_DB);\n" +
      "`pnpm start` creates its database on its first start.",
  );
}

/**
 * Opens the database the server uses, and only that: MONGODB_URI when set; else the embedded database of the server
 * running on DATA_DIR; else the embedded database stored in DATA_DIR, started for the command. Throws
 * NoDatabaseError when there is none, or when the database does not exist there (MONGODB_DB names another one).
 */
export async function openCliDatabase(config: Config, log: Log): Promise<CliDatabase> {
  const name = `database "${config.MONGODB_DB}"`;
  let source: { uri: string; where: string; stop(): Promise<void> };
  if (config.MONGODB_URI) {
    source = { uri: config.MONGODB_URI, where: `at MONGODB_URI ${withoutCredentials(config.MONGODB_URI)}`, stop: noop };
  } else {
    const running = await findRunningInstance(config.DATA_DIR);
    if (running) {
      source = {
        uri: running.uri,
        where: `of the server running on ${config.DATA_DIR} (pid ${running.pid})`,
        stop: noop,
      };
    } else {
      const engine = await storedEngine(config.DATA_DIR, config.EMBEDDED_DB);
      const embedded = await provisionDatabase({
        mongodbUri: undefined,
        dataDir: config.DATA_DIR,
        persistent: true,
        engine,
        log,
      });
      source = { ...embedded, where: `stored in ${embedded.location} (no server running: opened for this command)` };
    }
  }
  let client: MongoClient;
  try {
    client = await connectMongo(source.uri, { serverSelectionTimeoutMS: 10_000 });
  } catch (error) {
    await source.stop();
    throw new NoDatabaseError(`Cannot reach the ${name} ${source.where}: ${(error as Error).message}`);
  }
  const close = async () => {
    await client.close();
    await source.stop();
  };
  // The server makes its collections (with their indexes) on its first start: without any, it is not the server's.
  if (!(await client.db(config.MONGODB_DB).listCollections({}, { nameOnly: true }).hasNext())) {
    await close();
    throw new NoDatabaseError(
      `The ${name} ${source.where} does not exist: is MONGODB_DB the server's? ` +
        "The server creates its database on its first start.",
    );
  }
  return { client, description: `${name} ${source.where}`, close };
}

const noop = async () => {};
