import { defineConfig } from "vitest/config";
import harness from "./vitest.harness.config.js";

// `npm run soak`: the harness's kill and fuzz loops (test/harness/) at length, by hand (docs/repair.md has the
// figures of a run): 25 random kills per format on top of the fixed ones (124 kills) and 500 fast-check damaged
// stores per format (2,000) from the run's FUZZ_SEED (drawn anew by the harness config), about ten minutes on a 2-core machine. CRASH_TRIALS, FUZZ_RUNS,
// CRASH_SEED and FUZZ_SEED set from outside change them.
export default defineConfig({
  ...harness,
  test: {
    ...harness.test,
    // And the race of two repairs with different state dirs on one store, 10 rounds per format (npm test runs one).
    include: [...(harness.test?.include ?? []), "test/txn/store-lock.test.ts"],
    env: {
      // The harness's own (the run's drawn FUZZ_SEED and CRASH_SEED among them), then the soak's lengths.
      ...harness.test?.env,
      LOCK_ROUNDS: process.env.LOCK_ROUNDS ?? "10",
      CRASH_TRIALS: process.env.CRASH_TRIALS ?? "25",
      FUZZ_RUNS: process.env.FUZZ_RUNS ?? "500",
      // A battle case is a real git repository copied, statused, rolled back and undone (~1.5 s): 200 take ~5 min.
      FUZZ_BATTLE_RUNS: process.env.FUZZ_BATTLE_RUNS ?? "200",
    },
  },
});
