/**
 * Unhandled errors fail the run, as vitest's default does, except one that is vitest's own: under load its worker
 * reports `[vitest-worker]: Timeout calling "onTaskUpdate"` when the runner answers a progress update late
 * (vitest-dev/vitest#6479, #8164; fixed only in vitest 4's new pool). Seen here twice in a row with every test
 * passing; it says nothing about recover. vitest.config.ts turns its own unhandled-error check off
 * (dangerouslyIgnoreUnhandledErrors) so that this reporter can make the same check with that one exception.
 */
import type { Reporter, TestModule } from "vitest/node";

const VITEST_RPC_TIMEOUT = /^\[vitest-worker\]: Timeout calling "onTaskUpdate"$/;

export default class UnhandledErrors implements Reporter {
  onTestRunEnd(_modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<{ message?: string }>): void {
    const tolerated = errors.filter((e) => VITEST_RPC_TIMEOUT.test(e.message ?? ""));
    const real = errors.length - tolerated.length;
    if (tolerated.length > 0)
      process.stderr.write(`note: tolerated ${tolerated.length} vitest worker RPC timeout(s) (vitest-dev/vitest#6479); not a test failure\n`);
    if (real > 0) {
      process.stderr.write(`${real} unhandled error(s) besides vitest's own RPC timeouts: the run fails\n`);
      process.exitCode = 1;
    }
  }
}
