import { MongoClient, type MongoClientOptions } from "mongodb";

/**
 * Called with every client before it connects. Only tests add one: the query-shape capture of `pnpm check:indexes`
 * (test/support/query-shape-capture.ts), which reads the commands of every client the service makes.
 */
const clientWatchers: ((client: MongoClient) => void)[] = [];

/** Test-only: `watcher` sees every client connectMongo makes from now on, before it connects, monitoring commands. */
export function watchEveryClient(watcher: (client: MongoClient) => void): void {
  clientWatchers.push(watcher);
}

/** Connects the service's driver. */
export async function connectMongo(
  uri: string,
  options: MongoClientOptions = {},
  /** Attaches listeners to the client before it connects (the service's connection pool metrics). */
  beforeConnect: (client: MongoClient) => void = () => {},
): Promise<MongoClient> {
  // A watched client reports the commands it sends (the driver's command monitoring).
  const client = new MongoClient(uri, clientWatchers.length > 0 ? { ...options, monitorCommands: true } : options);
  beforeConnect(client);
  for (const watcher of clientWatchers) watcher(client);
  return client.connect();
}

/** A MongoDB URI without its credentials, for logs and messages. */
export const withoutCredentials = (uri: string) => uri.replace(/\/\/[^@/]*@/, "//…@");

/** How long start-up waits for the database to answer before it gives up (the driver's own default is 30 s). */
export const START_UP_SELECTION_MS = 3_000;

/**
 * Throws unless the database at `uri` answers a ping within START_UP_SELECTION_MS: a wrong MONGODB_URI is then said at
 * once, where the service's own client would wait its 30 s per operation.
 */
export async function assertDatabaseAnswers(uri: string): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: START_UP_SELECTION_MS });
  try {
    await client.connect();
    await client.db("admin").command({ ping: 1 });
  } finally {
    await client.close();
  }
}
