import type { TestProject } from "vitest/node";
import { provisionDatabase } from "../../src/db/provision.js";
import "./provided-context.js";

/**
 * One throwaway database server for the whole run (MONGODB_URI, mongod, else FerretDB); each file gets its own
 * database.
 */
export default async function setup(project: TestProject) {
  const database = await provisionDatabase({
    mongodbUri: process.env.MONGODB_URI,
    dataDir: "",
    persistent: false,
    engine: (process.env.EMBEDDED_DB as "auto" | "ferretdb" | "mongodb-memory-server" | undefined) ?? "auto",
    log: (message) => console.log(`[tests] ${message}`),
  });
  console.log(`[tests] database: ${database.engine}`);
  project.provide("mongodbUri", database.uri);
  return () => database.stop();
}
