import type { AddressInfo } from "node:net";
import { MongoClient, type Db } from "mongodb";
import { createHttpServer } from "./http/server.js";
import { createRepositories, ensureIndexes, type Repositories } from "./repositories/index.js";

export interface ServiceOptions {
  mongodbUri: string;
  dbName: string;
  host: string;
  port: number;
  adminToken: string | undefined;
  maxBodyBytes: number;
}

export interface RunningService {
  url: string;
  db: Db;
  repositories: Repositories;
  close(): Promise<void>;
}

/** Connects to MongoDB, makes sure every index exists, and serves HTTP. Used by `pnpm start` and the tests. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const client = await MongoClient.connect(options.mongodbUri);
  const db = client.db(options.dbName);
  const repositories = createRepositories(db);
  await ensureIndexes(repositories);
  const hostForUrl = options.host.includes(":") ? `[${options.host}]` : options.host;
  let url = `http://${hostForUrl}:${options.port}`;
  const server = createHttpServer({ repositories, adminToken: options.adminToken, maxBodyBytes: options.maxBodyBytes, baseUrl: url });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  url = `http://${hostForUrl}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    db,
    repositories,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await client.close();
    },
  };
}
