import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A file's time is split between this process (the test and its server) and the database's: one worker per core
    // keeps both busy (vitest's default, one fewer than the cores, runs one file at a time on two cores).
    maxWorkers: availableParallelism(),
    // The same embedded database server the server's suite uses; each test file gets its own database.
    globalSetup: ["../server/test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
