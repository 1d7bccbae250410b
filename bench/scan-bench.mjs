#!/usr/bin/env node
// `npm run bench`: times `recover session scan --all` on a large generated opencode store against
// a floor measured in the same run (bench/floor.mjs), and checks its memory stays bounded.
//
//   node bench/scan-bench.mjs [--runs 3] [--sessions N] [--parts-target N] [--seed N] [--force]
//
// Prints a markdown report and writes it to bench/.data/last-result.md (+ .json). Exits 1 when the
// scan ran but missed a target or produced a wrong result.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DATA_DIR, STORE_OPTIONS, ensureStore, storeOptions } from "./generate-store.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI_MAIN = join(ROOT, "dist/main.js");
const RSS_PRELOAD = pathToFileURL(join(ROOT, "bench/report-rss.mjs")).href;
const TARGET_RATIO = 1.5;
const TARGET_RSS_MB = 300;

const { values } = parseArgs({ options: { ...STORE_OPTIONS, runs: { type: "string" } } });
const runs = Number(values.runs ?? 3);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
const opts = storeOptions(values);
const store = ensureStore(opts);
const { stats, planted, plantedTotal, defects } = store.params;
const storeArg = relative(ROOT, store.dir);

const floorArgs = ["bench/floor.mjs", storeArg];
const scanArgs = ["bin/recover", "session", "scan", "--all", "--json", "--exit-zero", "--store", storeArg];
const cliBuilt = existsSync(CLI_MAIN);
if (!cliBuilt) {
  console.error(
    `\n${relative(ROOT, CLI_MAIN)} does not exist yet (the CLI is not built), so the scan is skipped;` +
      " the store and the floor are still measured. Run `npm run build` and then this bench again.\n",
  );
}

// Other work on the machine skews wall times; the report shows the load it started under.
const loadAtStart = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(" / ");
const tmp = mkdtempSync(join(os.tmpdir(), "recover-bench-"));
let seq = 0;
/** Runs `node --import report-rss.mjs …args` in a fresh process: wall time, peak RSS, stdout file. */
function run(args) {
  const out = join(tmp, `${++seq}.out`);
  const rssFile = join(tmp, `${seq}.rss`);
  const fd = openSync(out, "w");
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--import", RSS_PRELOAD, ...args], {
    cwd: ROOT,
    stdio: ["ignore", fd, "pipe"],
    maxBuffer: 64 << 20,
    timeout: 30 * 60_000,
    env: { ...process.env, RECOVER_BENCH_RSS_FILE: rssFile },
  });
  const ms = performance.now() - t0;
  closeSync(fd);
  const rssMB = existsSync(rssFile) ? JSON.parse(readFileSync(rssFile, "utf8")).maxRssKB / 1024 : NaN;
  if (r.status !== 0) {
    throw new Error(`\`node ${args.join(" ")}\` exited with ${r.signal ?? r.status}:\n${String(r.stderr).slice(-4000)}`);
  }
  return { ms, rssMB, out };
}

const problems = [];
const check = (ok, what) => {
  if (!ok) problems.push(what);
  return ok;
};

function checkFloor({ out }) {
  const f = JSON.parse(readFileSync(out, "utf8"));
  check(f.rows === stats.parts, `floor read ${f.rows} part rows, the store has ${stats.parts}`);
  check(f.parseFailures === (planted.truncatedJson ?? 0), `floor saw ${f.parseFailures} unparsable parts, ${planted.truncatedJson ?? 0} were planted`);
}

/** The scan's JSON must be valid, versioned, and report at least the planted defects. */
function checkScan({ out }) {
  const text = readFileSync(out, "utf8");
  let report;
  try {
    report = JSON.parse(text);
  } catch (e) {
    check(false, `scan stdout is not valid JSON: ${e.message}`);
    return {};
  }
  check(report.schemaVersion === 1, `scan JSON has schemaVersion ${JSON.stringify(report.schemaVersion)}, expected 1`);
  const findings = report.summary?.findings;
  check(
    typeof findings === "number" && findings >= plantedTotal,
    `scan reported summary.findings = ${JSON.stringify(findings)}, expected ≥ ${plantedTotal} (planted)`,
  );
  // Every planted defect must be reported against its part (searched as text: independent of the
  // exact report shape, which the CLI owns).
  const named = defects.filter((d) => text.includes(d.partID)).length;
  check(named === defects.length, `scan output names ${named} of the ${defects.length} planted part ids`);
  return { findings, named };
}

// Warm the page cache once, untimed, so the first timed run is not the only cold one.
console.error("warm-up: one untimed floor run");
run(floorArgs);

const floor = [];
const scan = [];
let scanResult = {};
for (let i = 0; i < runs; i++) {
  // alternate, so drift on the machine hits both alike
  console.error(`run ${i + 1}/${runs}: floor`);
  floor.push(run(floorArgs));
  checkFloor(floor.at(-1));
  if (!cliBuilt) continue;
  console.error(`run ${i + 1}/${runs}: scan`);
  try {
    scan.push(run(scanArgs));
    scanResult = checkScan(scan.at(-1));
  } catch (e) {
    check(false, e.message);
    break;
  }
}
rmSync(tmp, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (x) => `${Math.round(x)} MB`;
const n = (x) => x.toLocaleString("en-US");
const floorMs = median(floor.map((r) => r.ms));
const floorRss = Math.max(...floor.map((r) => r.rssMB));
const scanDone = cliBuilt && scan.length === runs;
const scanMs = scanDone ? median(scan.map((r) => r.ms)) : NaN;
const scanRss = scanDone ? Math.max(...scan.map((r) => r.rssMB)) : NaN;
const ratio = scanMs / floorMs;
if (scanDone) {
  check(ratio <= TARGET_RATIO, `scan took ${ratio.toFixed(2)}× the floor (target ≤ ${TARGET_RATIO}×)`);
  check(scanRss <= TARGET_RSS_MB, `scan peaked at ${mb(scanRss)} RSS (target ≤ ${TARGET_RSS_MB} MB)`);
}

const cpus = os.cpus();
const machine =
  `${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ` +
  `${os.type()} ${os.release()}, Node ${process.version}; load average at start ${loadAtStart} (1/5/15 min)`;
// How to reproduce exactly this report: scale may come from flags or RECOVER_BENCH_* variables.
const envScale = ["RECOVER_BENCH_SESSIONS", "RECOVER_BENCH_PARTS", "RECOVER_BENCH_SEED"]
  .filter((k) => process.env[k])
  .map((k) => `${k}=${process.env[k]} `)
  .join("");
const argv = process.argv.slice(2).join(" ");
const command = envScale || argv ? `${envScale}node bench/scan-bench.mjs ${argv}`.trim() : "npm run bench";
const scanRow = scanDone
  ? `| \`recover session scan --all --json\` | ${sec(scanMs)} | ${mb(scanRss)} | ${ratio.toFixed(2)}× |`
  : `| \`recover session scan --all --json\` | ${cliBuilt ? "failed" : "pending"} | | |`;
const md =
  `# recover scan benchmark (${new Date().toISOString()})

- Command: \`${command}\` (${runs} runs; store: ${opts.sessions} sessions, ≥${n(opts.partsTarget)} parts, seed ${opts.seed})
- Machine: ${machine}
- Store: \`${storeArg}/opencode.db\`, ${(stats.dbBytes / 2 ** 20).toFixed(0)} MiB, ${n(stats.sessions)} sessions, ` +
  `${n(stats.messages)} messages, ${n(stats.parts)} parts, ${plantedTotal} planted defects ` +
  `(${Object.entries(planted)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ")}); ` +
  `${store.reused ? "reused" : "generated"} (generation took ${sec(stats.genMs)})
- Each figure: ${runs} run(s) in fresh processes, floor and scan alternating, after one untimed warm-up; ` +
  `wall time = process start to exit, peak RSS = \`process.resourceUsage().maxRSS\` at exit.

| Run | Wall time (median) | Peak RSS (max) | vs floor |
|---|---:|---:|---:|
| floor: \`node bench/floor.mjs\` (iterate + JSON.parse every part) | ${sec(floorMs)} | ${mb(floorRss)} | 1.00× |
${scanRow}

- Floor runs: ${floor.map((r) => sec(r.ms)).join(", ")}
- Scan runs: ${scanDone ? scan.map((r) => `${sec(r.ms)} / ${mb(r.rssMB)}`).join(", ") : cliBuilt ? "failed" : `pending: ${relative(ROOT, CLI_MAIN)} not built`}
${
  scanDone
    ? `- Scan result: summary.findings = ${scanResult.findings} (≥ ${plantedTotal} planted); ` +
      `${scanResult.named}/${plantedTotal} planted part ids named in the output
- Targets: scan ≤ ${TARGET_RATIO}× floor: ${ratio <= TARGET_RATIO ? "met" : "MISSED"}; ` +
      `peak RSS ≤ ${TARGET_RSS_MB} MB: ${scanRss <= TARGET_RSS_MB ? "met" : "MISSED"}
`
    : ""
}${problems.length ? `\n**Problems:**\n${problems.map((p) => `- ${p}`).join("\n")}\n` : ""}`;

console.log(md);
writeFileSync(join(DATA_DIR, "last-result.md"), md);
writeFileSync(
  join(DATA_DIR, "last-result.json"),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine,
      runs,
      store: { path: storeArg, ...stats, planted },
      floor: { medianMs: Math.round(floorMs), maxRssMB: Math.round(floorRss), runsMs: floor.map((r) => Math.round(r.ms)) },
      scan: scanDone ? { medianMs: Math.round(scanMs), maxRssMB: Math.round(scanRss), ratio: +ratio.toFixed(3), ...scanResult } : null,
      problems,
    },
    null,
    2,
  ) + "\n",
);
process.exitCode = problems.length ? 1 : 0;
