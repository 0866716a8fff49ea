import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { watchEveryClient } from "../../src/db/connect.js";
import { describeShape, indexesOfCommand, shapesOfCommand } from "../../src/db/query-shapes.js";

/**
 * With `QUERY_SHAPES_DIR` set (by `pnpm check:indexes`), every command a client of the service sends is read through
 * the driver's command monitoring, and each distinct query shape and index declaration is appended to a file of this
 * process in that folder. Loaded before every test file (vitest `setupFiles`) and into every service process a test
 * starts (`--import`), so nothing the service does escapes it, whichever test drives it.
 */
const folder = process.env.QUERY_SHAPES_DIR;
if (folder) {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${process.pid}.jsonl`);
  const seen = new Set<string>();
  const record = (kind: "shape" | "index", value: object, key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    appendFileSync(file, `${JSON.stringify({ kind, ...value })}\n`);
  };
  watchEveryClient((client) => {
    client.on("commandStarted", ({ commandName, command }) => {
      if (commandName === "createIndexes") {
        for (const index of indexesOfCommand(command))
          record("index", index, `index ${index.collection} ${index.name}`);
        return;
      }
      for (const shape of shapesOfCommand(commandName, command)) {
        record("shape", shape, `${shape.collection} ${describeShape(shape)}`);
      }
    });
  });
}
