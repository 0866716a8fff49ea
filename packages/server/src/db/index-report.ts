import { readFileSync } from "node:fs";
import type { IndexDeclaration, OperatorClass } from "./query-shapes.js";
import type { CapturedShape } from "./shard-check.js";

/** Written by `pnpm check:indexes`: the repository's docs/indexes.md. */
const INDEXES_DOC = new URL("../../../../docs/indexes.md", import.meta.url);

/**
 * docs/indexes.md read back: the query shapes the whole suite sent and the indexes the repositories declared, per
 * collection, as `pnpm check:indexes` captured them (the index proof's own input, written out).
 */
export function readIndexReport(): { shapes: CapturedShape[]; indexes: IndexDeclaration[] } {
  const shapes: CapturedShape[] = [];
  const indexes: IndexDeclaration[] = [];
  let collection = "";
  for (const line of readFileSync(INDEXES_DOC, "utf8").split("\n")) {
    const [, section] = /^## (\S+)$/.exec(line) ?? [];
    if (section) collection = section;
    const [, text, fields] = /^\| `(\w+ \{([^}]*)\}[^`]*)` \|/.exec(line) ?? [];
    if (text !== undefined && fields !== undefined && collection)
      shapes.push({ collection, text, filter: filterOf(fields) });
    const [, name, keyFields, unique] = /^- `([^`]+)` \{([^}]*)\}( unique)?/.exec(line) ?? [];
    if (name !== undefined && keyFields !== undefined && collection) {
      const key = keyFields.split(", ").map((part): [string, 1 | -1] => {
        const [field = "", order] = part.split(": ");
        return [field, Number(order) as 1 | -1];
      });
      indexes.push({ collection, name, key, unique: unique !== undefined });
    }
  }
  return { shapes, indexes };
}

const filterOf = (text: string): Record<string, OperatorClass> =>
  Object.fromEntries(
    text
      .split(", ")
      .filter(Boolean)
      .map((part) => part.split(": ") as [string, OperatorClass]),
  );
