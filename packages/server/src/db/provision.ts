import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFerretDb } from "./ferretdb.js";
import { ensureFerretDbBinary, type Log } from "./ferretdb-build.js";

export type EmbeddedEngine = "auto" | "mongodb-memory-server" | "ferretdb";

export interface ProvisionOptions {
  mongodbUri: string | undefined;
  /** Persistent data lives here (git-ignored); ephemeral databases live in a temp folder removed on stop. */
  dataDir: string;
  persistent: boolean;
  engine: EmbeddedEngine;
  log: Log;
}

export interface ProvisionedDatabase {
  uri: string;
  /** Human-readable: which database this is. */
  engine: string;
  embedded: boolean;
  /** Where the data lives, for the start-up log. */
  location: string;
  stop(): Promise<void>;
}

const MEMORY_SERVER_TIMEOUT_MS = 120_000;

/** MONGODB_URI when set; else a real mongod from mongodb-memory-server; else embedded FerretDB. */
export async function provisionDatabase(options: ProvisionOptions): Promise<ProvisionedDatabase> {
  if (options.mongodbUri) {
    return {
      uri: options.mongodbUri,
      engine: "MongoDB at MONGODB_URI",
      embedded: false,
      location: "MONGODB_URI",
      stop: async () => {},
    };
  }
  const dataDir = options.persistent ? options.dataDir : await mkdtemp(join(tmpdir(), "billing-db-"));
  const removeTemp = async () => {
    if (!options.persistent) await rm(dataDir, { recursive: true, force: true });
  };
  if (options.engine !== "ferretdb") {
    try {
      const memoryServer = await startMemoryServer(join(dataDir, "mongod"), options.persistent);
      return {
        ...memoryServer,
        embedded: true,
        location: dataDir,
        stop: async () => {
          await memoryServer.stop();
          await removeTemp();
        },
      };
    } catch (error) {
      if (options.engine === "mongodb-memory-server") throw error;
      const reason = (error as Error).message.replace(/\s+/g, " ").slice(0, 200);
      options.log(`mongodb-memory-server is unavailable (${reason}); using embedded FerretDB`);
    }
  }
  const binary = await ensureFerretDbBinary(options.log);
  const ferretDataDir = join(dataDir, "ferretdb");
  await mkdir(ferretDataDir, { recursive: true });
  const ferret = await startFerretDb(binary, ferretDataDir, options.log);
  return {
    uri: ferret.uri,
    engine: "embedded FerretDB 1.24 (SQLite engine)",
    embedded: true,
    location: ferretDataDir,
    stop: async () => {
      await ferret.stop();
      await removeTemp();
    },
  };
}

async function startMemoryServer(dbPath: string, persistent: boolean) {
  const { MongoBinary, MongoMemoryServer } = await import("mongodb-memory-server-core");
  await mkdir(dbPath, { recursive: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no mongod within ${MEMORY_SERVER_TIMEOUT_MS / 1000} s`)),
      MEMORY_SERVER_TIMEOUT_MS,
    );
  });
  try {
    // Resolving the binary first (cached, MONGOMS_SYSTEM_BINARY, or a download) fails cleanly when none can be had.
    const binaryPath = await Promise.race([MongoBinary.getPath(), timeout]);
    const server = await Promise.race([
      MongoMemoryServer.create({
        binary: { systemBinary: binaryPath },
        instance: { dbPath, storageEngine: "wiredTiger" },
      }),
      timeout,
    ]);
    return {
      uri: server.getUri(),
      engine: `mongod ${server.opts.binary?.version ?? ""} (mongodb-memory-server)`.replace("  ", " "),
      stop: async () => void (await server.stop({ doCleanup: !persistent })),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A running server publishes its embedded database's URI in the data folder, so that the operator CLI
 * works against the very same database instead of opening the files a second time.
 */
const instanceFile = (dataDir: string) => join(dataDir, "instance.json");

export async function publishInstance(dataDir: string, uri: string) {
  await writeFile(instanceFile(dataDir), JSON.stringify({ uri, pid: process.pid }));
}

export async function unpublishInstance(dataDir: string) {
  await rm(instanceFile(dataDir), { force: true });
}

/** The embedded database's URI and the process id of the server running on `dataDir`, if one is. */
export async function findRunningInstance(dataDir: string): Promise<{ uri: string; pid: number } | undefined> {
  try {
    const { uri, pid } = JSON.parse(await readFile(instanceFile(dataDir), "utf8")) as { uri: string; pid: number };
    process.kill(pid, 0); // throws when no such process
    return { uri, pid };
  } catch {
    return undefined;
  }
}
