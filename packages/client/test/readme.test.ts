// The README's method table against the client itself: a method added without its row, or a row naming a method
// the client does not have, fails here.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createBillingClient } from "../src/index.js";

const readme = new URL("../README.md", import.meta.url);

/**
 * The methods a table cell names: its code spans outside parentheses (`get`, `list({ customerId? })`), each by the
 * name it starts with. Code spans within parentheses are notes (`(→ \`Uint8Array\`)`), not methods.
 */
function methodsOfCell(cell: string): string[] {
  const methods: string[] = [];
  let depth = 0;
  for (const [, text, code] of cell.matchAll(/([^`]*)(?:`([^`]*)`)?/g)) {
    for (const char of text ?? "") depth += char === "(" ? 1 : char === ")" ? -1 : 0;
    if (code !== undefined && depth === 0) methods.push(/^[A-Za-z]\w*/.exec(code)?.[0] ?? `<not a method: ${code}>`);
  }
  return methods;
}

/** `{ namespace: [methods] }` of the table under `## Methods`, in the order written. */
function methodTable(markdown: string): Record<string, string[]> {
  const section = markdown.split(/^## Methods$/m)[1]?.split(/^## /m)[0] ?? "";
  const rows = section.split("\n").filter((line) => /^\|\s*`/.test(line));
  return Object.fromEntries(
    rows.map((row) => {
      const [namespace = "", methods = ""] = row.split("|").slice(1, 3);
      return [namespace.trim().replaceAll("`", ""), methodsOfCell(methods)];
    }),
  );
}

/** `{ namespace: [methods] }` of a client, sorted, as an app sees it at run time. */
function methodsOfClient(client: object): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(client).map(([namespace, api]) => [
      namespace,
      Object.entries(api as object)
        .filter(([, value]) => typeof value === "function")
        .map(([name]) => name)
        .sort(),
    ]),
  );
}

describe("the README's method table", () => {
  it("reads the method names of a cell, not the code in its notes", () => {
    expect(
      methodsOfCell("`get`, `list({ a?, b? })`, `pdf(id)` (→ `Uint8Array`, see `x(y)`), `run({ at? })` (up to `at`)"),
    ).toEqual(["get", "list", "pdf", "run"]);
  });

  it("names every namespace and method of createBillingClient, and nothing else, each once", async () => {
    const table = methodTable(await readFile(readme, "utf8"));
    const client = methodsOfClient(createBillingClient({ baseUrl: "http://127.0.0.1:1", token: "t" }));
    expect(Object.keys(table).length).toBeGreaterThan(0);
    for (const [namespace, methods] of Object.entries(table)) {
      expect(new Set(methods).size, `a method of ${namespace} is listed twice`).toBe(methods.length);
    }
    const sorted = Object.fromEntries(Object.entries(table).map(([namespace, methods]) => [namespace, methods.sort()]));
    expect(sorted).toEqual(client);
  });
});
