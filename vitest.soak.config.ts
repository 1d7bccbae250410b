import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// `npm run soak`: the crash trials with their full randomized sets on top of the fixed kills `npm test` makes —
// 26 random kills per opencode format, 12 for the Claude Code transcript. CRASH_SEED picks other moments;
// CRASH_TRIALS / TRANSCRIPT_CRASH_TRIALS set from outside change the counts. Spread, not mergeConfig: that would
// concatenate `include` with the whole suite's.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["test/txn/crash-safety-*.test.ts", "test/txn/transcript-crash.test.ts"],
    env: {
      CRASH_TRIALS: process.env.CRASH_TRIALS ?? "26",
      TRANSCRIPT_CRASH_TRIALS: process.env.TRANSCRIPT_CRASH_TRIALS ?? "12",
    },
  },
});
