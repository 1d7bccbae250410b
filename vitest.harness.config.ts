import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// `npm run test:harness` (CI runs it after `npm test`): the kill and fuzz loops of test/harness/, bounded to a few
// minutes on a 2-core machine. Per format: the fixed kills plus CRASH_TRIALS random ones (4 here: 40 kills over
// the four formats), and FUZZ_RUNS fast-check cases of damaged stores. `npm run soak` runs the same files with
// thousands of cases (vitest.soak.config.ts). Spread, not mergeConfig: that would concatenate `include` with the
// whole suite's.
//
// Every run explores new ground: FUZZ_SEED and CRASH_SEED are drawn here, once per run (so every file of the run
// shares them), printed first, and named in each loop's test title and in every failure. Set either to replay a run.
const drawSeed = () => String(1 + Math.floor(Math.random() * 0x7ffffffe));
const FUZZ_SEED = process.env.FUZZ_SEED || drawSeed();
const CRASH_SEED = process.env.CRASH_SEED || drawSeed();
console.log(`harness seeds: FUZZ_SEED=${FUZZ_SEED} CRASH_SEED=${CRASH_SEED} (set them to replay this run)`);

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/harness/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    env: {
      CRASH_TRIALS: process.env.CRASH_TRIALS ?? "4",
      FUZZ_RUNS: process.env.FUZZ_RUNS ?? "50",
      FUZZ_SEED,
      CRASH_SEED,
    },
  },
});
