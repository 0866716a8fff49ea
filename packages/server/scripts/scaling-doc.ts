/**
 * `pnpm --filter @billing/server docs:scaling`: rewrites docs/scaling.md's shard-key table from the plan
 * (src/db/shard-plan.ts) checked against docs/indexes.md (test/shard-plan.test.ts fails while they differ).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readIndexReport } from "../src/db/index-report.js";
import { checkPlan, scalingTable } from "../src/db/shard-check.js";

const SCALING = fileURLToPath(new URL("../../../docs/scaling.md", import.meta.url));
export const BEGIN = "<!-- shard-plan table: written by `pnpm --filter @billing/server docs:scaling` -->";
export const END = "<!-- end of the shard-plan table -->";

const { shapes, indexes } = readIndexReport();
const doc = readFileSync(SCALING, "utf8");
const start = doc.indexOf(BEGIN);
const end = doc.indexOf(END);
if (start < 0 || end < start) throw new Error(`docs/scaling.md lacks the markers ${BEGIN} … ${END}`);
const table = scalingTable(checkPlan(shapes, indexes)).join("\n");
writeFileSync(SCALING, `${doc.slice(0, start + BEGIN.length)}\n${table}\n${doc.slice(end)}`);
console.log("docs/scaling.md: shard-plan table rewritten");
