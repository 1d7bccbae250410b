// Preload for the scan benchmark: `node --import ./bench/report-rss.mjs <script> …`.
// On exit it writes this process's peak RSS to the file named by RECOVER_BENCH_RSS_FILE, so the
// CLI's memory can be measured from outside without changing the CLI, and the CLI's phase marks
// (src/cli/phases.ts: ms since the process started) so a phase can be timed apart from start-up.
import { writeFileSync } from "node:fs";

const file = process.env.RECOVER_BENCH_RSS_FILE;
if (file) {
  // 'exit' also fires on process.exit() and after an uncaught exception; only a kill by signal
  // leaves no report, which the bench treats as a failed run.
  process.on("exit", () => {
    // maxRSS is in kilobytes (Linux ru_maxrss); it covers the main thread and any worker threads.
    const marks = Object.fromEntries(
      performance
        .getEntriesByType("mark")
        .filter((m) => m.name.startsWith("recover:"))
        .map((m) => [m.name.slice("recover:".length), m.startTime]),
    );
    writeFileSync(file, JSON.stringify({ maxRssKB: process.resourceUsage().maxRSS, marks }) + "\n");
  });
}
