import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// `npm run test:harness` (CI runs it after `npm test`): the kill and fuzz loops of test/harness/, bounded to a few
// minutes on a 2-core machine. Per format: the fixed kills plus CRASH_TRIALS random ones (4 here: 40 kills over
// the four formats), and FUZZ_RUNS fast-check cases of damaged stores. CRASH_SEED / FUZZ_SEED replay a failure
// (both printed when one fails). `npm run soak` runs the same files with thousands of cases
// (vitest.soak.config.ts). Spread, not mergeConfig: that would concatenate `include` with the whole suite's.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/harness/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    env: {
      CRASH_TRIALS: process.env.CRASH_TRIALS ?? "4",
      FUZZ_RUNS: process.env.FUZZ_RUNS ?? "50",
    },
  },
});
