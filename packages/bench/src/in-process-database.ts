import { createRepositories, ensureIndexes, provisionDatabase } from "@billing/server";
import { type Db, MongoClient, ObjectId } from "mongodb";
import { log } from "./progress.js";
import { embeddedEngine } from "./server.js";

type Repositories = ReturnType<typeof createRepositories>;

/**
 * Runs a section in-process on a database of its own (MONGODB_URI, else the embedded engine EMBEDDED_DB names,
 * FerretDB unless it says otherwise, as for the other sections' servers), through a client whose commands `watch`
 * sees (command monitoring: what the service reads), with the service's repositories and indexes on a fresh
 * database named after `name`; closes the client and stops the database after.
 */
export async function withMonitoredDatabase<T>(
  name: string,
  watch: (client: MongoClient) => void,
  run: (db: Db, repositories: Repositories, engine: string) => Promise<T>,
): Promise<T> {
  const database = await provisionDatabase({
    mongodbUri: process.env.MONGODB_URI,
    dataDir: "",
    persistent: false,
    // As startServer: "auto" would first try to download mongod (seconds where it cannot be had, as here).
    engine: embeddedEngine(),
    log,
  });
  const client = await MongoClient.connect(database.uri, { monitorCommands: true });
  watch(client);
  try {
    const db = client.db(`bench_${name}_${new ObjectId().toHexString()}`);
    const repositories = createRepositories(db);
    await ensureIndexes(repositories);
    return await run(db, repositories, database.engine);
  } finally {
    await client.close();
    await database.stop();
  }
}
