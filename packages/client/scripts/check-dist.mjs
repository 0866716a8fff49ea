// The published files must stand alone: at run time and in their declarations they may import only the package's
// own dependencies and node's built-in modules, never a workspace package.
import { readFileSync } from "node:fs";

const { dependencies } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const allowed = Object.keys(dependencies).filter((name) => !name.startsWith("@billing/"));
const importsOf = (text) => [
  ...[...text.matchAll(/(?:from|import)\s*["']([^"']+)["']/g)].map(([, name]) => name),
  ...[...text.matchAll(/require\(["']([^"']+)["']\)/g)].map(([, name]) => name),
];
let failed = false;
for (const file of ["index.js", "index.cjs", "index.d.ts", "index.d.cts"]) {
  const text = readFileSync(new URL(`../dist/${file}`, import.meta.url), "utf8");
  const imported = [...new Set(importsOf(text))];
  const foreign = imported.filter(
    (name) => !name.startsWith("node:") && !allowed.some((dep) => name === dep || name.startsWith(`${dep}/`)),
  );
  if (foreign.length > 0) {
    console.error(`dist/${file} imports modules users will not have: ${foreign.join(", ")}`);
    failed = true;
  } else {
    console.log(`dist/${file}: ${text.split("\n").length} lines, imports ${imported.join(", ") || "nothing"}`);
  }
}
if (failed) process.exit(1);
