import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A file's time is split between this process (the test and its server) and the database's: one worker per core
    // keeps both busy (vitest's default, one fewer than the cores, runs one file at a time on two cores).
    maxWorkers: availableParallelism(),
    // The same embedded database server the server's suite uses (each test file gets its own database), and the
    // console's build, made when missing or stale.
    globalSetup: ["../server/test/support/global-setup.ts", "test/support/build-console.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
