// `pnpm lint`'s second half: Biome wraps code at 120 columns but leaves strings and comments as written, so this
// finds any tracked source line longer than that (Markdown, the lockfile and generated docs excepted).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const MAX_COLUMNS = 120;
const CHECKED = /\.(ts|mts|mjs|js|json|jsonc|sh|yaml|yml)$|^\.ci\/run$/;
const EXEMPT = /^(pnpm-lock\.yaml|docs\/|tools\/|patches\/)/;

const files = execFileSync("git", ["ls-files", "-z"], { encoding: "utf8" })
  .split("\0")
  .filter((file) => CHECKED.test(file) && !EXEMPT.test(file));
const long = files.flatMap((file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, index) => ([...line].length > MAX_COLUMNS ? [`${file}:${index + 1}: ${[...line].length}`] : [])),
);
for (const line of long) console.error(`${line} columns (at most ${MAX_COLUMNS})`);
process.exit(long.length > 0 ? 1 : 0);
