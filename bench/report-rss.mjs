// Preload for the scan benchmark: `node --import ./bench/report-rss.mjs <script> …`.
// On exit it writes this process's peak RSS and CPU time to the file named by RECOVER_BENCH_RSS_FILE, so the
// CLI's memory and work can be measured from outside without changing the CLI, and the CLI's phase marks
// (src/cli/phases.ts: ms since the process started) so a phase can be timed apart from start-up.
import { writeFileSync } from "node:fs";

const file = process.env.RECOVER_BENCH_RSS_FILE;
if (file) {
  // 'exit' also fires on process.exit() and after an uncaught exception; only a kill by signal
  // leaves no report, which the bench treats as a failed run.
  process.on("exit", () => {
    // maxRSS is in kilobytes (Linux ru_maxrss); it and the CPU times (µs) cover every thread of the process: the
    // scan's workers, and V8's own compiler and garbage-collector threads.
    const usage = process.resourceUsage();
    const marks = Object.fromEntries(
      performance
        .getEntriesByType("mark")
        .filter((m) => m.name.startsWith("recover:"))
        .map((m) => [m.name.slice("recover:".length), m.startTime]),
    );
    writeFileSync(file, JSON.stringify({ maxRssKB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, marks }) + "\n");
  });
}
