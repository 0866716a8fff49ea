// The published declarations must stand alone: they may import only the package's own dependencies.
import { readFileSync } from "node:fs";

const declarations = readFileSync(new URL("../dist/index.d.ts", import.meta.url), "utf8");
const { dependencies } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const allowed = Object.keys(dependencies).filter((name) => !name.startsWith("@billing/"));
const imported = [...declarations.matchAll(/from ["']([^"']+)["']/g)].map(([, name]) => name);
const foreign = imported.filter((name) => !allowed.some((dep) => name === dep || name.startsWith(`${dep}/`)));
if (foreign.length > 0) {
  console.error(`dist/index.d.ts imports modules users will not have: ${[...new Set(foreign)].join(", ")}`);
  process.exit(1);
}
console.log(
  `dist/index.d.ts: ${declarations.split("\n").length} lines, imports ` +
    `${[...new Set(imported)].join(", ") || "nothing"}`,
);
