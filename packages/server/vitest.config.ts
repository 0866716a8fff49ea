import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A file's time is split between this process (the test and its server) and the database's: one worker per core
    // keeps both busy (vitest's default, one fewer than the cores, runs one file at a time on two cores).
    maxWorkers: availableParallelism(),
    globalSetup: ["test/support/global-setup.ts"],
    // The query-shape capture of `pnpm check:indexes`: inert unless QUERY_SHAPES_DIR is set.
    setupFiles: ["test/support/query-shape-capture.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
