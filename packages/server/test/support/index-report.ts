import { readFileSync } from "node:fs";
import type { IndexDeclaration, OperatorClass, QueryShape } from "../../src/db/query-shapes.js";

const INDEXES_DOC = new URL("../../../../docs/indexes.md", import.meta.url);

/** A shape as docs/indexes.md lists it: its text, and its filter read back. */
export interface ReportedShape {
  collection: string;
  text: string;
  filter: Record<string, OperatorClass>;
}

/**
 * docs/indexes.md read back: the query shapes the whole suite sent and the indexes the repositories declared, per
 * collection, as `pnpm check:indexes` captured them (the index proof's own input, written out).
 */
export function readIndexReport(): { shapes: ReportedShape[]; indexes: IndexDeclaration[] } {
  const shapes: ReportedShape[] = [];
  const indexes: IndexDeclaration[] = [];
  let collection = "";
  for (const line of readFileSync(INDEXES_DOC, "utf8").split("\n")) {
    const heading = /^## (\S+)$/.exec(line);
    if (heading) collection = heading[1]!;
    const shape = /^\| `(\w+ \{([^}]*)\}[^`]*)` \|/.exec(line);
    if (shape && collection) shapes.push({ collection, text: shape[1]!, filter: filterOf(shape[2]!) });
    const index = /^- `([^`]+)` \{([^}]*)\}( unique)?/.exec(line);
    if (index && collection) {
      const key = index[2]!.split(", ").map((part) => {
        const [field, order] = part.split(": ");
        return [field!, Number(order) as 1 | -1] as [string, 1 | -1];
      });
      indexes.push({ collection, name: index[1]!, key, unique: Boolean(index[3]) });
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

export type { QueryShape };
