import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The same embedded database server the server's suite uses (each test file gets its own database), and the
    // console's build, made when missing or stale.
    globalSetup: ["../server/test/support/global-setup.ts", "test/support/build-console.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
