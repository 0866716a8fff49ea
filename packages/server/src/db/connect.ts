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
