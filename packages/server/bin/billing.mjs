#!/usr/bin/env node
// The operator CLI (src/cli.ts) through tsx's loader. Linked into the repository root's node_modules/.bin, it is what
// `pnpm billing …` runs there: pnpm runs a bin of that name, with no script in between, so its exit code and output
// are the CLI's own (a script's failure would add pnpm's error lines after a usage message).
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
