import type { Document } from "mongodb";

/** What `explain()` says about how the engine answered a query. */
export interface PlanSummary {
  /** The index that served the query, or null when the engine read the collection itself. */
  index: string | null;
  keysExamined: number | null;
  docsExamined: number | null;
  returned: number | null;
  /** One line for the report, in the engine's own terms. */
  detail: string;
}

/** Every value under `key` anywhere in the plan tree (mongod nests stages under inputStage(s), SBE under queryPlan). */
function collect(node: unknown, key: string, found: unknown[] = []): unknown[] {
  if (Array.isArray(node)) {
    for (const child of node) collect(child, key, found);
  } else if (node && typeof node === "object") {
    for (const [name, value] of Object.entries(node)) {
      if (name === key) found.push(value);
      collect(value, key, found);
    }
  }
  return found;
}

/**
 * mongod reports its winning plan and execution stats. FerretDB 1.24 reports the SQLite plan and whether it could
 * push the filter down: when it cannot, it reads and filters every document of the collection (`storedDocs`).
 */
export function describePlan(explain: Document, storedDocs: number): PlanSummary {
  if ("filterPushdown" in explain) {
    const sqlitePlan = collect(explain.queryPlanner, "Plan")
      .flat()
      .map(String)
      .join("; ")
      .replace(/id=\d+ parent=\d+ notused=\d+ detail=/g, "");
    const pushed = explain.filterPushdown === true;
    return {
      index: null,
      keysExamined: null,
      docsExamined: pushed ? null : storedDocs,
      returned: null,
      detail:
        `FerretDB: filterPushdown ${pushed}, sortPushdown ${explain.sortPushdown === true}; SQLite plan ` +
        `"${sqlitePlan}"`,
    };
  }
  const stats = explain.executionStats as Document | undefined;
  const indexNames = [...new Set(collect(explain.queryPlanner?.winningPlan, "indexName").map(String))];
  const stages = [...new Set(collect(explain.queryPlanner?.winningPlan, "stage").map(String))];
  return {
    index: indexNames.length > 0 ? indexNames.join(", ") : null,
    keysExamined: stats?.totalKeysExamined ?? null,
    docsExamined: stats?.totalDocsExamined ?? null,
    returned: stats?.nReturned ?? null,
    detail: `mongod: ${stages.join(" ← ") || "unknown plan"}`,
  };
}
