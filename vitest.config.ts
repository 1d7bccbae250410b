import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // CLI tests spawn the built binary and build real SQLite stores: give them room on a 2-core CI machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Unhandled errors still fail the run, through this reporter, except vitest's own worker RPC timeout (see it).
    reporters: ["default", "./test/support/unhandled-errors.ts"],
    dangerouslyIgnoreUnhandledErrors: true,
  },
});
