import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { MongoClient, type MongoClientOptions } from "mongodb";
import { describeShape, indexesOfCommand, shapesOfCommand } from "./query-shapes.js";

/**
 * Connects the service's driver. With `QUERY_SHAPES_DIR` set (by `pnpm check:indexes`), every command the
 * service sends is read through the driver's command monitoring and each distinct query shape and index
 * declaration is appended to a file of this process in that folder: the capture is in the server, so nothing
 * the service does escapes it, whichever test drives it.
 */
export async function connectMongo(
  uri: string,
  options: MongoClientOptions = {},
  /** Attaches listeners to the client before it connects (the service's connection pool metrics). */
  beforeConnect: (client: MongoClient) => void = () => {},
): Promise<MongoClient> {
  const folder = process.env.QUERY_SHAPES_DIR;
  const client = new MongoClient(uri, folder ? { ...options, monitorCommands: true } : options);
  beforeConnect(client);
  if (!folder) return client.connect();
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${process.pid}.jsonl`);
  const seen = new Set<string>();
  const record = (kind: "shape" | "index", value: object, key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    appendFileSync(file, `${JSON.stringify({ kind, ...value })}\n`);
  };
  client.on("commandStarted", ({ commandName, command }) => {
    if (commandName === "createIndexes") {
      for (const index of indexesOfCommand(command)) record("index", index, `index ${index.collection} ${index.name}`);
      return;
    }
    for (const shape of shapesOfCommand(commandName, command))
      record("shape", shape, `${shape.collection} ${describeShape(shape)}`);
  });
  return client.connect();
}
