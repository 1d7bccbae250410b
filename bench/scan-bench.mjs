#!/usr/bin/env node
// `npm run bench`: times `recover session scan --all` on two large generated opencode stores (2,000 sessions with
// ~316k and ~444k parts) against a floor measured in the same run (bench/floor.mjs), and checks its memory stays
// bounded. Targets: scan ≤ 1.2× the floor (the median of the runs' scan ÷ floor pairs), peak RSS ≤ 300 MB.
//
//   node bench/scan-bench.mjs [--runs 3] [--sessions N] [--parts-target N] [--seed N] [--force] [--reference DIR]
//
// A scale given by flags (or RECOVER_BENCH_* variables) measures that store only. --reference DIR names a built
// checkout of another commit: its scan's --json must be byte-identical to this one's on every store.
//
// Prints a markdown report and writes it to bench/.data/last-result.md (+ .json). Exits 1 when the
// scan ran but missed a target or produced a wrong result.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DATA_DIR, STORE_OPTIONS, ensureStore, storeOptions } from "./generate-store.mjs";
import { median } from "./stats.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI_MAIN = join(ROOT, "dist/main.cjs");
const RSS_PRELOAD = pathToFileURL(join(ROOT, "bench/report-rss.mjs")).href;
const TARGET_RATIO = 1.2;
const TARGET_RSS_MB = 300;

const { values } = parseArgs({ options: { ...STORE_OPTIONS, runs: { type: "string" }, reference: { type: "string" } } });
const runs = Number(values.runs ?? 3);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
/**
 * The two scales the fast-scan issue judges: the 2,000-session / 300k-part store, and a larger one (2,000 sessions,
 * ~440k parts, ~1 GiB). A scale given by flags or RECOVER_BENCH_* variables measures that one store only.
 */
const SCALES = [{}, { sessions: "2000", "parts-target": "420000", seed: "2" }];
const chosen =
  ["sessions", "parts-target", "seed", "name"].some((k) => values[k] !== undefined) ||
  ["RECOVER_BENCH_SESSIONS", "RECOVER_BENCH_PARTS", "RECOVER_BENCH_SEED"].some((k) => process.env[k]);
const scales = chosen ? [storeOptions(values)] : SCALES.map((scale) => storeOptions({ ...scale, force: values.force }, {}));
/** --reference <dir>: a built checkout of another commit; its scan output must be byte-identical to this one's. */
const reference = values.reference ? join(values.reference, "bin/recover") : undefined;
if (reference && !existsSync(reference)) throw new Error(`--reference: ${reference} does not exist`);

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
/** Runs `node --import report-rss.mjs …args` in a fresh process: wall time, peak RSS, CPU (all threads), stdout file. */
function run(args, node = [process.execPath, "--import", RSS_PRELOAD]) {
  const out = join(tmp, `${++seq}.out`);
  const rssFile = join(tmp, `${seq}.rss`);
  const fd = openSync(out, "w");
  const t0 = performance.now();
  const r = spawnSync(node[0], [...node.slice(1), ...args], {
    cwd: ROOT,
    stdio: ["ignore", fd, "pipe"],
    maxBuffer: 64 << 20,
    timeout: 30 * 60_000,
    env: { ...process.env, RECOVER_BENCH_RSS_FILE: rssFile },
  });
  const ms = performance.now() - t0;
  closeSync(fd);
  const usage = existsSync(rssFile) ? JSON.parse(readFileSync(rssFile, "utf8")) : {};
  const rssMB = usage.maxRssKB / 1024;
  const cpuMs = usage.cpuMs;
  if (r.status !== 0) {
    throw new Error(`\`node ${args.join(" ")}\` exited with ${r.signal ?? r.status}:\n${String(r.stderr).slice(-4000)}`);
  }
  return { ms, rssMB, cpuMs, out };
}

const problems = [];
const check = (ok, what) => {
  if (!ok) problems.push(what);
  return ok;
};
const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Floor and scan on one store, alternating, after one untimed warm-up floor run (the page cache). */
function benchStore(opts) {
  const store = ensureStore(opts);
  const { stats, planted, plantedTotal, defects } = store.params;
  const storeArg = relative(ROOT, store.dir);
  const floorArgs = ["bench/floor.mjs", storeArg];
  const scanArgs = ["bin/recover", "session", "scan", "--all", "--json", "--exit-zero", "--store", storeArg];
  const label = `${storeArg}: `;

  const checkFloor = ({ out }) => {
    const f = JSON.parse(readFileSync(out, "utf8"));
    check(f.rows === stats.parts, `${label}floor read ${f.rows} part rows, the store has ${stats.parts}`);
    check(
      f.parseFailures === (planted.truncatedJson ?? 0),
      `${label}floor saw ${f.parseFailures} unparsable parts, ${planted.truncatedJson ?? 0} were planted`,
    );
  };
  /** The scan's JSON must be valid, versioned, and report at least the planted defects. */
  const checkScan = ({ out }) => {
    const text = readFileSync(out, "utf8");
    let report;
    try {
      report = JSON.parse(text);
    } catch (e) {
      check(false, `${label}scan stdout is not valid JSON: ${e.message}`);
      return {};
    }
    check(report.schemaVersion === 1, `${label}scan JSON has schemaVersion ${JSON.stringify(report.schemaVersion)}, expected 1`);
    const findings = report.summary?.findings;
    check(
      typeof findings === "number" && findings >= plantedTotal,
      `${label}scan reported summary.findings = ${JSON.stringify(findings)}, expected ≥ ${plantedTotal} (planted)`,
    );
    // Every planted defect must be reported against its part (searched as text: independent of the exact report
    // shape, which the CLI owns).
    const named = defects.filter((d) => text.includes(d.partID)).length;
    check(named === defects.length, `${label}scan output names ${named} of the ${defects.length} planted part ids`);
    return { findings, named, sha256: sha256(out) };
  };

  console.error(`${storeArg}: warm-up, one untimed floor run`);
  run(floorArgs);
  const floor = [];
  const scan = [];
  const outputs = new Set();
  let result = {};
  for (let i = 0; i < runs; i++) {
    // Alternate, so drift on the machine hits both alike.
    console.error(`${storeArg}: run ${i + 1}/${runs}: floor`);
    floor.push(run(floorArgs));
    checkFloor(floor.at(-1));
    if (!cliBuilt) continue;
    console.error(`${storeArg}: run ${i + 1}/${runs}: scan`);
    try {
      scan.push(run(scanArgs));
      result = checkScan(scan.at(-1));
      outputs.add(result.sha256);
    } catch (e) {
      check(false, e.message);
      break;
    }
  }
  check(outputs.size <= 1, `${label}the scan's output differed between runs (${outputs.size} different outputs)`);
  let identical;
  if (reference && cliBuilt && scan.length > 0) {
    console.error(`${storeArg}: the reference build's scan, once`);
    const theirs = run([reference, ...scanArgs.slice(1)], [process.execPath]);
    identical = sha256(theirs.out) === result.sha256;
    check(identical, `${label}the scan's --json differs from the reference build's (${reference})`);
  }
  const done = cliBuilt && scan.length === runs;
  const pairs = done ? scan.map((s, i) => s.ms / floor[i].ms) : [];
  // Not judged: how much work the scan does for the floor's, whatever the threads. Wall ratio = CPU ratio ÷ the
  // scan's speed-up from its threads, and this VM runs two threads well in some phases and badly in others.
  const cpuPairs = done ? scan.map((s, i) => s.cpuMs / floor[i].cpuMs) : [];
  return {
    storeArg,
    stats,
    planted,
    plantedTotal,
    reused: store.reused,
    floor,
    scan: done ? scan : undefined,
    floorMs: median(floor.map((r) => r.ms)),
    floorRss: Math.max(...floor.map((r) => r.rssMB)),
    floorCpu: median(floor.map((r) => r.cpuMs)),
    scanMs: done ? median(scan.map((r) => r.ms)) : NaN,
    scanRss: done ? Math.max(...scan.map((r) => r.rssMB)) : NaN,
    scanCpu: done ? median(scan.map((r) => r.cpuMs)) : NaN,
    cpuRatio: done ? median(cpuPairs) : NaN,
    // The judged figure: the median of each run's scan ÷ the floor run just before it (drift cancels in a pair).
    ratio: done ? median(pairs) : NaN,
    pairs,
    result,
    identical,
  };
}

const measured = scales.map(benchStore);
rmSync(tmp, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------
const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (x) => `${Math.round(x)} MB`;
const n = (x) => x.toLocaleString("en-US");
for (const m of measured) {
  if (!m.scan) continue;
  check(m.ratio <= TARGET_RATIO, `${m.storeArg}: scan took ${m.ratio.toFixed(2)}× the floor (median of pairs; target ≤ ${TARGET_RATIO}×)`);
  check(m.scanRss <= TARGET_RSS_MB, `${m.storeArg}: scan peaked at ${mb(m.scanRss)} RSS (target ≤ ${TARGET_RSS_MB} MB)`);
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

const section = (m) => {
  const scanRow = m.scan
    ? `| \`recover session scan --all --json\` | ${sec(m.scanMs)} | ${mb(m.scanRss)} | ${m.ratio.toFixed(2)}× | ${sec(m.scanCpu)} (${m.cpuRatio.toFixed(2)}×) |`
    : `| \`recover session scan --all --json\` | ${cliBuilt ? "failed" : "pending"} | | | |`;
  return (
    `## \`${m.storeArg}\`

- Store: ${(m.stats.dbBytes / 2 ** 20).toFixed(0)} MiB, ${n(m.stats.sessions)} sessions, ${n(m.stats.messages)} messages, ${n(m.stats.parts)} parts, ` +
    `${m.plantedTotal} planted defects (${Object.entries(m.planted)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ")}); ${m.reused ? "reused" : "generated"} (generation took ${sec(m.stats.genMs)})

| Run | Wall time (median) | Peak RSS (max) | scan ÷ floor (median of pairs) | CPU, all threads (median; ÷ floor, median of pairs; not judged) |
|---|---:|---:|---:|---:|
| floor: \`node bench/floor.mjs\` (iterate + JSON.parse every part) | ${sec(m.floorMs)} | ${mb(m.floorRss)} | 1.00× | ${sec(m.floorCpu)} |
${scanRow}

- Floor runs: ${m.floor.map((r) => sec(r.ms)).join(", ")}
- Scan runs: ${m.scan ? m.scan.map((r, i) => `${sec(r.ms)} / ${mb(r.rssMB)} (${m.pairs[i].toFixed(2)}×)`).join(", ") : cliBuilt ? "failed" : `pending: ${relative(ROOT, CLI_MAIN)} not built`}
${
  m.scan
    ? `- Scan result: summary.findings = ${m.result.findings} (≥ ${m.plantedTotal} planted); ${m.result.named}/${m.plantedTotal} planted part ids named; ` +
      `--json sha256 ${m.result.sha256?.slice(0, 16)}…, the same in every run${m.identical === undefined ? "" : m.identical ? "; byte-identical to the reference build's" : "; DIFFERS from the reference build's"}
- Targets: scan ≤ ${TARGET_RATIO}× floor: ${m.ratio <= TARGET_RATIO ? "met" : "MISSED"}; peak RSS ≤ ${TARGET_RSS_MB} MB: ${m.scanRss <= TARGET_RSS_MB ? "met" : "MISSED"}
`
    : ""
}`
  );
};

const md =
  `# recover scan benchmark (${new Date().toISOString()})

- Command: \`${command}\` (${runs} runs per store${reference ? `; reference build: \`${values.reference}\`` : ""})
- Machine: ${machine}
- Each figure: ${runs} run(s) in fresh processes, floor and scan alternating, after one untimed warm-up; ` +
  `wall time = process start to exit, peak RSS = \`process.resourceUsage().maxRSS\` at exit, CPU = its user + system time (every thread).

${measured.map(section).join("\n")}${problems.length ? `\n**Problems:**\n${problems.map((p) => `- ${p}`).join("\n")}\n` : ""}`;

console.log(md);
writeFileSync(join(DATA_DIR, "last-result.md"), md);
writeFileSync(
  join(DATA_DIR, "last-result.json"),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine,
      runs,
      stores: measured.map((m) => ({
        store: { path: m.storeArg, ...m.stats, planted: m.planted },
        floor: {
          medianMs: Math.round(m.floorMs),
          maxRssMB: Math.round(m.floorRss),
          cpuMedianMs: Math.round(m.floorCpu),
          runsMs: m.floor.map((r) => Math.round(r.ms)),
        },
        scan: m.scan
          ? {
              medianMs: Math.round(m.scanMs),
              maxRssMB: Math.round(m.scanRss),
              ratio: +m.ratio.toFixed(3),
              cpuMedianMs: Math.round(m.scanCpu),
              cpuRatio: +m.cpuRatio.toFixed(3),
              pairs: m.pairs.map((x) => +x.toFixed(3)),
              ...m.result,
              identicalToReference: m.identical,
            }
          : null,
      })),
      problems,
    },
    null,
    2,
  ) + "\n",
);
process.exitCode = problems.length ? 1 : 0;
