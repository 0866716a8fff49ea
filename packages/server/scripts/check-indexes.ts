/**
 * `pnpm check:indexes`: proves that every query the service sends is one an index serves on MongoDB.
 *
 * Runs the server's whole test suite with QUERY_SHAPES_DIR set, so that each distinct query shape and index
 * declaration the service sends is recorded (test/support/query-shape-capture.ts); then matches every shape to
 * an index by the equality–sort–range rule (src/db/query-shapes.ts), writes the report to docs/indexes.md and
 * exits non-zero when a shape is unserved (and not listed in index-exceptions.json with its reason) or a
 * non-unique index serves no shape (it would cost every write for nothing).
 *
 *   pnpm check:indexes                      run the suite, then check
 *   pnpm check:indexes --shapes DIR         check shapes captured before (no test run): CI captures them during
 *                                           `pnpm test` with QUERY_SHAPES_DIR=DIR, so the suite runs once
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeShape, type IndexDeclaration, type QueryShape, servingIndex } from "../src/db/query-shapes.js";

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const REPORT = fileURLToPath(new URL("../../../docs/indexes.md", import.meta.url));
const EXCEPTIONS = fileURLToPath(new URL("../index-exceptions.json", import.meta.url));

interface Exception {
  collection: string;
  shape: string;
  reason: string;
}

function captureShapes(): string {
  const folder = mkdtempSync(join(tmpdir(), "query-shapes-"));
  console.log(`Running the server's test suite with the query-shape capture on (${folder})…`);
  const run = spawnSync("npx", ["vitest", "run"], {
    cwd: SERVER_DIR,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, QUERY_SHAPES_DIR: folder },
  });
  const output = run.stdout.toString();
  console.log(
    output
      .split("\n")
      .filter((line) => /Test Files|Tests {2}/.test(line))
      .join("\n"),
  );
  if (run.status !== 0) {
    console.error(output.slice(-4000));
    console.error("The test suite failed: the captured shapes may be incomplete.");
    process.exit(1);
  }
  return folder;
}

function readCapture(folder: string) {
  const shapes = new Map<string, QueryShape>();
  const indexes = new Map<string, IndexDeclaration>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith(".jsonl"))) {
    for (const line of readFileSync(join(folder, file), "utf8").split("\n").filter(Boolean)) {
      const { kind, ...value } = JSON.parse(line);
      if (kind === "shape") shapes.set(`${value.collection} ${describeShape(value)}`, value as QueryShape);
      else indexes.set(`${value.collection} ${value.name}`, value as IndexDeclaration);
    }
  }
  return { shapes: [...shapes.values()], indexes: [...indexes.values()] };
}

const keyText = (index: IndexDeclaration) =>
  `\`${index.name}\` ` +
  `{${index.key.map(([field, order]) => `${field}: ${order}`).join(", ")}}${index.unique ? " unique" : ""}`;

function main() {
  const args = process.argv.slice(2);
  const folder = args[0] === "--shapes" && args[1] ? args[1] : captureShapes();
  const { shapes, indexes } = readCapture(folder);
  if (shapes.length === 0) {
    console.error(`No query shape was captured in ${folder}: was the suite run with QUERY_SHAPES_DIR set to it?`);
    process.exit(1);
  }
  const exceptions: Exception[] = JSON.parse(readFileSync(EXCEPTIONS, "utf8"));
  const collections = [
    ...new Set([...shapes.map((shape) => shape.collection), ...indexes.map((index) => index.collection)]),
  ].sort();
  const used = new Set<string>();
  const problems: string[] = [];
  const lines = [
    "# Query shapes and the indexes that serve them",
    "",
    "Written by `pnpm check:indexes` (do not edit): every distinct query shape the service sent while its whole " +
      "test suite",
    "ran, captured from the driver's command stream inside the server, and the index that serves it on MongoDB by the",
    "equality–sort–range rule (`packages/server/src/db/query-shapes.ts`). A `count` is the `total` of a list: it " +
      "is served",
    "by the same index as the list's own query, which the table shows on the neighbouring `find` line.",
    "A sorted read with an `$in` of more than 200 values (MongoDB sorts it in memory), or with a `$or` whose " +
      "top-level bounds",
    "start its scan before every branch's, is never served.",
    "Exceptions (with their reasons) are listed in `packages/server/index-exceptions.json`.",
    "",
  ];
  for (const collection of collections) {
    const declared = indexes.filter((index) => index.collection === collection);
    lines.push(`## ${collection}`, "", "| shape | served by |", "|---|---|");
    for (const shape of shapes
      .filter((candidate) => candidate.collection === collection)
      .sort((a, b) => describeShape(a).localeCompare(describeShape(b)))) {
      const text = describeShape(shape);
      const index = servingIndex(shape, declared);
      const exception = exceptions.find((candidate) => candidate.collection === collection && candidate.shape === text);
      if (index) used.add(`${collection} ${index.name}`);
      else if (!exception) problems.push(`${collection}: no index serves ${text}`);
      lines.push(
        `| \`${text}\` | ` +
          `${index ? `\`${index.name}\`` : exception ? `exception: ${exception.reason}` : "**NOT SERVED**"} |`,
      );
    }
    lines.push("", "Indexes:", "");
    for (const index of declared) {
      const isUsed = used.has(`${collection} ${index.name}`);
      if (!isUsed && !index.unique) problems.push(`${collection}: index ${index.name} serves no shape (drop it)`);
      const unused = index.unique ? ": serves no query; kept for its unique constraint" : ": **serves no shape**";
      lines.push(`- ${keyText(index)}${isUsed ? "" : unused}`);
    }
    lines.push("");
  }
  writeFileSync(REPORT, `${lines.join("\n").trimEnd()}\n`);
  console.log(`${shapes.length} shapes over ${collections.length} collections; report in docs/indexes.md`);
  for (const problem of problems) console.error(`✗ ${problem}`);
  process.exit(problems.length === 0 ? 0 : 1);
}

main();
