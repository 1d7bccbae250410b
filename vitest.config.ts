import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The kill and fuzz loops are `npm run test:harness` (vitest.harness.config.ts), run by CI after this suite:
    // they alone took most of its 3-minute budget.
    exclude: ["test/harness/**", "**/node_modules/**"],
    // Most CLI tests call main() in-process; some spawn the built binary; all build real SQLite stores: give them
    // room on a 2-core CI machine.
    testTimeout: 30_000,
    // Both cores: vitest's default leaves one idle (available cores - 1). Forks, not threads: the crash trials and
    // the store tests use child processes and native SQLite, which run best in a process of their own.
    pool: "forks",
    // One fork per worker for every file it runs, not one per file: booting a fork and its module graph per file cost
    // about a minute of CPU over the suite (4m01s → 3m15s wall here). Safe because no test changes process-wide state
    // (process.env, cwd, the store registry without undoing it): each passes env and cwd to main() or to its child.
    isolate: false,
    maxWorkers: 2,
    minWorkers: 1,
    hookTimeout: 30_000,
    setupFiles: ["./test/support/remove-temp-dirs.ts"],
    // Unhandled errors still fail the run, through this reporter, except vitest's own worker RPC timeout (see it).
    reporters: ["default", "./test/support/unhandled-errors.ts"],
    dangerouslyIgnoreUnhandledErrors: true,
  },
});
