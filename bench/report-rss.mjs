// Preload for the scan benchmark: `node --import ./bench/report-rss.mjs <script> …`.
// On exit it writes this process's peak RSS to the file named by RECOVER_BENCH_RSS_FILE, so the
// CLI's memory can be measured from outside without changing the CLI.
import { writeFileSync } from "node:fs";

const file = process.env.RECOVER_BENCH_RSS_FILE;
if (file) {
  // 'exit' also fires on process.exit() and after an uncaught exception; only a kill by signal
  // leaves no report, which the bench treats as a failed run.
  process.on("exit", () => {
    // maxRSS is in kilobytes (Linux ru_maxrss); it covers the main thread and any worker threads.
    writeFileSync(file, JSON.stringify({ maxRssKB: process.resourceUsage().maxRSS }) + "\n");
  });
}
