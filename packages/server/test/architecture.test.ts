import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The layering of packages/server/src (docs/architecture.md), held against the imports of its files: every import
 * goes to a layer its own may import, and no files import each other in a circle. Reads the files as text (a
 * regex over their import specifiers): nothing of src is run.
 */

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/**
 * A file's layer: its top folder under src (`services`), or its own name when it stands at the top (`trpc.ts`); the
 * stored shapes (`presenters/stored-*.ts`) are a layer of their own, `presenters/stored`.
 */
const layerOf = (file: string) =>
  /^presenters\/stored-[^/]+\.ts$/.test(file) ? "presenters/stored" : (file.split("/")[0] as string);

/** The entry points (the server, the package's entry, the operator CLI): they may import any layer. */
const ENTRY_POINTS = new Set([
  "main.ts",
  "index.ts",
  "cli.ts",
  "cli-tokens.ts",
  "cli-database.ts",
  "cli-audit.ts",
  "cli-export.ts",
]);

/** What each layer may import besides itself, from the bottom up: docs/architecture.md says why. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  "logger.ts": [],
  "billing-clock.ts": [],
  auth: [],
  observability: [],
  domain: [],
  "error-body.ts": ["domain", "logger.ts"],
  "config.ts": ["domain", "auth"],
  db: ["domain"],
  presenters: ["domain"],
  "presenters/stored": ["db", "domain", "presenters"],
  documents: ["domain", "presenters"],
  repositories: ["db", "presenters/stored", "domain", "auth", "observability", "logger.ts", "billing-clock.ts"],
  services: [
    ...["repositories", "db", "presenters", "presenters/stored", "documents", "domain", "auth", "observability"],
    ...["logger.ts", "billing-clock.ts"],
  ],
  "context.ts": ["repositories", "observability", "domain", "logger.ts"],
  "trpc.ts": ["context.ts", "error-body.ts"],
  middleware: [
    "trpc.ts",
    "context.ts",
    "repositories",
    "domain",
    "auth",
    "observability",
    "error-body.ts",
    "logger.ts",
    "billing-clock.ts",
  ],
  "procedures.ts": ["trpc.ts", "middleware"],
  routers: [
    ...["procedures.ts", "trpc.ts", "context.ts", "services", "presenters", "repositories", "domain", "logger.ts"],
    "billing-clock.ts",
  ],
  http: [
    ...["routers", "trpc.ts", "context.ts", "middleware", "documents", "repositories", "observability", "auth"],
    ...["domain", "error-body.ts", "logger.ts"],
  ],
  "app.ts": [
    ...["http", "routers", "procedures.ts", "middleware", "trpc.ts", "context.ts", "services", "repositories", "db"],
    ...["presenters", "documents", "domain", "error-body.ts", "config.ts", "observability", "auth", "logger.ts"],
  ],
};

/** Layers that hold types only: every import of theirs is `import type` (context.ts: trpc.ts builds on it). */
const TYPES_ONLY = new Set(["context.ts"]);

/** The packages a pure layer may import: no I/O, no framework (the domain is plain functions over plain data). */
const PURE_PACKAGES: Record<string, readonly string[]> = {
  domain: ["@billing/shared", "zod", "currency-codes", "node:crypto", "node:net"],
  presenters: ["@billing/shared"],
};

/** Layers that never see tRPC: the transport stays above services. */
const WITHOUT_TRPC = new Set([
  "domain",
  "db",
  "presenters",
  "presenters/stored",
  "documents",
  "repositories",
  "services",
]);

/**
 * Imports against the rules that stand today, `from -> to` (files under src), each with why. One that no longer
 * stands fails the test until its line goes: the list only shrinks, and says what is left to move.
 */
const EXCEPTIONS: Record<string, string> = {
  "repositories/invoices.ts -> presenters/invoices.ts":
    "the repository checks a draft as the API states it (presentInvoiceDraft) before storing it: moving to services",
};

/**
 * Where the API's decimals and micro-units meet: `toMicros`, `fromMicros` and `unitsOfMicros` (`@billing/shared`) are
 * imported by `presenters/` (the stored shapes too) and by the files below, each with why; anywhere else a conversion
 * goes through `presenters/money.ts` (docs/architecture.md, "Money").
 */
const MONEY_CONVERSIONS = new Set(["toMicros", "fromMicros", "unitsOfMicros"]);
const CONVERTS_ELSEWHERE: Record<string, string> = {
  "domain/invoices/settlement.ts":
    "a 409's message names amounts as the API writes them (`2.75 EUR`), and the rule that refuses builds it",
  "domain/billing/tax.ts": "ratePpm reads a percent rate (not money) exactly from its decimal text with toMicros",
};

interface Import {
  specifier: string;
  typeOnly: boolean;
}

/** `import … from "x"` or `export … from "x"` (its clause kept, to tell types), `import "x"`, `import("x")`. */
const IMPORT = new RegExp(
  [
    /^[ \t]*(?:import|export)[ \t]+(type[ \t]+)?([^"';]*?)[ \t]*from[ \t]*"([^"]+)"/.source,
    /^[ \t]*import[ \t]*"([^"]+)"/.source,
    /\bimport\([ \t]*"([^"]+)"[ \t]*\)/.source,
  ].join("|"),
  "gm",
);

/** The import specifiers of a file: static (`import … from`, `export … from`, side-effect) and dynamic. */
function importsOf(text: string): Import[] {
  return [...text.matchAll(IMPORT)].map(([, type, clause = "", from, bare, dynamic]) => {
    const names = clause.replace(/^\{|\}$/g, "").split(",");
    const allTyped = clause.startsWith("{") && names.every((name) => /^\s*(type\s|$)/.test(name));
    return { specifier: (from ?? bare ?? dynamic) as string, typeOnly: Boolean(type) || allTyped };
  });
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(SRC, path).split("\\").join("/")] : [];
  });

const files = sourceFiles(SRC).sort();
const fileSet = new Set(files);
/** Each file's imports, relative ones resolved to a file under src (`./x.js` is `x.ts`). */
const graph = new Map(
  files.map((file) => {
    const imports = importsOf(readFileSync(join(SRC, file), "utf8")).map((found) => {
      if (!found.specifier.startsWith(".")) return { ...found, target: undefined };
      const target = join(dirname(file), found.specifier).split("\\").join("/").replace(/\.js$/, ".ts");
      return { ...found, target };
    });
    return [file, imports] as const;
  }),
);

describe("the layers of packages/server/src (docs/architecture.md)", () => {
  it("reads every file and resolves every relative import to a file of src", () => {
    expect(files.length).toBeGreaterThan(100);
    const unresolved = [...graph].flatMap(([file, imports]) =>
      imports.filter(({ target }) => target !== undefined && !fileSet.has(target)).map((i) => `${file} -> ${i.target}`),
    );
    expect(unresolved).toEqual([]);
    expect([...graph.values()].flat().length).toBeGreaterThan(files.length);
  });

  it("knows the layer of every file", () => {
    const unknown = files.filter((file) => !ENTRY_POINTS.has(layerOf(file)) && !MAY_IMPORT[layerOf(file)]);
    expect(unknown, "a new layer: give it its line in MAY_IMPORT and docs/architecture.md").toEqual([]);
  });

  it("imports only from the layers each layer may import (or a listed exception)", () => {
    const found = new Set<string>();
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      const layer = layerOf(file);
      for (const { target } of imports) {
        if (target === undefined || ENTRY_POINTS.has(layer) || layerOf(target) === layer) continue;
        const arrow = `${file} -> ${target}`;
        if (MAY_IMPORT[layer]?.includes(layerOf(target))) continue;
        if (EXCEPTIONS[arrow]) found.add(arrow);
        else violations.push(`${arrow} (${layer} may import: ${MAY_IMPORT[layer]?.join(", ") || "nothing of src"})`);
      }
    }
    expect(violations, "imports against the layering").toEqual([]);
    const stale = Object.keys(EXCEPTIONS).filter((arrow) => !found.has(arrow));
    expect(stale, "exceptions that no longer stand: remove them from EXCEPTIONS").toEqual([]);
  });

  it("keeps the packages of the pure layers pure, and tRPC above the services", () => {
    const violations = [...graph].flatMap(([file, imports]) =>
      imports.flatMap(({ specifier, target }) => {
        if (target !== undefined) return [];
        const pure = PURE_PACKAGES[layerOf(file)];
        if (pure && !pure.includes(specifier)) return [`${file} -> ${specifier} (a pure layer)`];
        if (WITHOUT_TRPC.has(layerOf(file)) && /^(@trpc\/|trpc-to-openapi)/.test(specifier)) {
          return [`${file} -> ${specifier} (below the transport)`];
        }
        return [];
      }),
    );
    expect(violations).toEqual([]);
  });

  it("converts between the API's decimals and micro-units only in presenters/ (or a listed file)", () => {
    const NAMED = /^[ \t]*import[ \t]+(?:type[ \t]+)?\{([^}]*)\}[ \t]*from[ \t]*"@billing\/shared"/gm;
    const found = new Set<string>();
    const violations = files.flatMap((file) => {
      const names = [...readFileSync(join(SRC, file), "utf8").matchAll(NAMED)].flatMap(([, list = ""]) =>
        list.split(",").map(
          (name) =>
            name
              .replace(/^\s*type\s+/, "")
              .trim()
              .split(/\s+as\s+/)[0] as string,
        ),
      );
      const conversions = names.filter((name) => MONEY_CONVERSIONS.has(name));
      if (conversions.length === 0 || layerOf(file).startsWith("presenters")) return [];
      if (CONVERTS_ELSEWHERE[file]) {
        found.add(file);
        return [];
      }
      return [`${file} imports ${conversions.join(", ")}`];
    });
    expect(violations, "convert through presenters/money.ts").toEqual([]);
    expect(
      Object.keys(CONVERTS_ELSEWHERE).filter((file) => !found.has(file)),
      "no longer converts: unlist",
    ).toEqual([]);
  });

  it("imports only types into the layers that hold types", () => {
    const violations = [...graph].flatMap(([file, imports]) =>
      TYPES_ONLY.has(layerOf(file))
        ? imports.filter(({ typeOnly }) => !typeOnly).map(({ specifier }) => `${file} -> ${specifier}`)
        : [],
    );
    expect(violations, "use `import type`").toEqual([]);
  });

  it("keeps billing runs above the services they use: inside services/, only billing/ imports billing/", () => {
    const violations = [...graph].flatMap(([file, imports]) =>
      file.startsWith("services/") && !file.startsWith("services/billing/")
        ? imports
            .filter(({ target }) => target?.startsWith("services/billing/"))
            .map(({ target }) => `${file} -> ${target}`)
        : [],
    );
    expect(violations).toEqual([]);
  });

  it("has no import circle among its files", () => {
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      path.push(file);
      for (const { target } of graph.get(file) ?? []) {
        if (target === undefined || !fileSet.has(target)) continue;
        if (state.get(target) === "open") circles.push([...path.slice(path.indexOf(target)), target].join(" -> "));
        else if (!state.has(target)) visit(target);
      }
      path.pop();
      state.set(file, "done");
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(circles, "files that import each other in a circle").toEqual([]);
  });
});
