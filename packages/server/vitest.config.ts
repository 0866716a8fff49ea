import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // The query-shape capture of `pnpm check:indexes`: inert unless QUERY_SHAPES_DIR is set.
    setupFiles: ["test/support/query-shape-capture.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
