#!/usr/bin/env node
// Times `recover context trim` on ONE 50 MB Claude Code transcript (issue: context trim inside the running turn):
// 2 prompts, then a running turn of several hundred steps (one line per content block, as Claude Code writes a
// streamed response), tool results long-tailed (most a few KB, some 100 KB – 3 MB), stored usage that tracks the
// real prompt. Target: plan ≤ 1 s, write ≤ 2 s, on the 2-core machine. Each is timed inside the process from the
// CLI's phase marks (src/cli/phases.ts): plan = loaded → planned (of a --dry-run), write = writing → written (of a
// --yes: re-read and compare the file, back it up, replace it, all fsynced). Reading the store and starting Node are
// the load column and the floor's business: no plan can start before the file is read.
//
//   npm run build && node bench/trim-transcript-bench.mjs [--runs 3] [--mb 50] [--seed 9]
//
// Each command run is paired with a run of the floor (a fresh Node process that reads the file, splits it into lines
// and JSON.parses each: what any reader of the transcript pays) and the ratio is taken pair by pair, so the figure
// survives a machine that is slower one hour than the next. Each run is a fresh process with the RSS preload (bench/report-rss.mjs) and a fresh XDG_STATE_HOME; `--yes` runs on
// a fresh copy of the file. Prints a markdown table and exits 1 when a run fails or the trim does not fit.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { makeRng } from "./generate-store.mjs";
import { median } from "./stats.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin/recover");
const RSS_PRELOAD = pathToFileURL(join(ROOT, "bench/report-rss.mjs")).href;
const { values } = parseArgs({ options: { runs: { type: "string" }, mb: { type: "string" }, seed: { type: "string" }, keep: { type: "string" } } });
const runs = Number(values.runs ?? 3);
const targetBytes = Number(values.mb ?? 50) * 1_000_000;
const rng = makeRng(Number(values.seed ?? 9));
const START = Date.UTC(2026, 4, 4, 8, 30);
const WORDS = ["worker", "batch", "invoice", "ledger", "queue", "retry", "shard", "export", "cursor", "payload"];

function logText(size) {
  const out = [];
  let n = 0;
  while (n < size) {
    const line = `2026-05-04T0${rng.int(0, 9)}:${rng.int(10, 59)}:${rng.int(10, 59)}Z INFO  ${rng.pick(WORDS)} ${rng.int(1, 9999)} processed ${rng.int(1, 500)} ${rng.pick(WORDS)}s ok`;
    out.push(line);
    n += line.length + 1;
  }
  return out.join("\n");
}

function transcript() {
  const sessionId = randomUUID();
  const lines = [];
  let parent = null;
  let t = START;
  let sent = 0;
  const envelope = { isSidechain: false, userType: "external", cwd: "/srv/etl", sessionId, version: "2.1.90", gitBranch: "main" };
  const push = (record) => {
    const uuid = randomUUID();
    t += rng.int(50, 4_000);
    lines.push(JSON.stringify({ parentUuid: parent, ...envelope, ...record, uuid, timestamp: new Date(t).toISOString() }));
    parent = uuid;
  };
  const user = (content) => push({ type: "user", message: { role: "user", content } });
  const response = (blocks) => {
    const id = `msg_01${randomUUID().replaceAll("-", "").slice(0, 22)}`;
    const usage = { input_tokens: rng.int(2, 12), cache_creation_input_tokens: 500, cache_read_input_tokens: Math.round(sent / 4), output_tokens: 200 };
    for (const block of blocks)
      push({ type: "assistant", message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [block], usage } });
  };
  user("The nightly ETL fails with ECONNRESET. Find the cause and fix it.");
  response([{ type: "text", text: "I will start with the logs." }]);
  user("Keep going until you know why the cursor resets.");
  let bytes = 0;
  let steps = 0;
  for (let small = 0; small < 3; ) {
    if (bytes >= targetBytes) small++;
    const id = `toolu_01${randomUUID().replaceAll("-", "").slice(0, 22)}`;
    response([
      { type: "text", text: `Step ${steps + 1}: the next piece of evidence.` },
      { type: "tool_use", id, name: "Bash", input: { command: `journalctl -u etl-worker -n ${rng.int(100, 9000)}` } },
    ]);
    // The last 3 steps read small files (what the model did right before the request that overflowed).
    const last = bytes >= targetBytes;
    const size = last ? rng.int(500, 4_000) : rng.chance(0.02) ? rng.int(100_000, 3_000_000) : rng.logNormal(3_000, 1.2, 50, 60_000);
    const output = logText(size);
    user([{ type: "tool_result", tool_use_id: id, content: output }]);
    sent += output.length;
    bytes += output.length;
    steps++;
  }
  response([{ type: "text", text: "The cursor resets after a partial batch." }]);
  return { sessionId, text: `${lines.join("\n")}\n`, steps };
}

function run(args, copyFrom, sessionId) {
  const state = mkdtempSync(join(os.tmpdir(), "recover-trim-bench-state-"));
  const rssFile = join(state, "rss.json");
  const dir = mkdtempSync(join(os.tmpdir(), "recover-trim-bench-store-"));
  const projects = join(dir, "projects", "-srv-etl");
  mkdirSync(projects, { recursive: true });
  // Claude Code names a transcript after its session.
  const file = join(projects, `${sessionId}.jsonl`);
  copyFileSync(copyFrom, file);
  // A dead session: its file was last written long ago (a fresh copy would look like a running agent's).
  utimesSync(file, START / 1000, START / 1000);
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["--import", RSS_PRELOAD, BIN, ...args, "--store", dir], {
    env: { ...process.env, XDG_STATE_HOME: state, NO_COLOR: "1", CI: "1", RECOVER_BENCH_RSS_FILE: rssFile },
    maxBuffer: 1 << 30,
    encoding: "utf8",
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const report = JSON.parse(readFileSync(rssFile, "utf8"));
  const { marks } = report;
  const phases = {
    load: marks.loaded / 1000,
    plan: (marks.planned - marks.loaded) / 1000,
    ...(marks.written !== undefined ? { write: (marks.written - marks.writing) / 1000 } : {}),
  };
  rmSync(state, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  return { status: r.status, wall, rss: report.maxRssKB / 1024, phases, doc: r.stdout ? JSON.parse(r.stdout) : undefined, stderr: r.stderr };
}

const FLOOR = `
const bytes = require("node:fs").readFileSync(process.argv[1]);
let start = 0;
for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, start)) { JSON.parse(bytes.toString("utf8", start, i)); start = i + 1; }`;
function floor(file) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ["-e", FLOOR, file], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`the floor failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const scratch = mkdtempSync(join(os.tmpdir(), "recover-trim-bench-src-"));
const source = join(scratch, "session.jsonl");
const { sessionId, text, steps } = transcript();
writeFileSync(source, text);
// --keep <dir>: leave a copy of the generated store there (to look at what was timed).
if (values.keep) {
  const projects = join(values.keep, "projects", "-srv-etl");
  mkdirSync(projects, { recursive: true });
  copyFileSync(source, join(projects, `${sessionId}.jsonl`));
}
const size = statSync(source).size;
let failed = false;
const rows = [];
const fmt = (xs) => (xs.every((x) => x !== undefined) ? `${median(xs).toFixed(2)} s` : "–");
for (const [label, args, want, phase, target] of [
  ["`recover context trim <id> --dry-run --json`", ["context", "trim", sessionId, "--dry-run", "--json"], 1, "plan", 1],
  ["`recover context trim <id> --yes --json` (fresh copy each run)", ["context", "trim", sessionId, "--yes", "--json"], 0, "write", 2],
]) {
  const results = Array.from({ length: runs }, () => {
    const floorWall = floor(source);
    const result = run(args, source, sessionId);
    return { ...result, floorWall, ratio: result.wall / floorWall };
  });
  for (const r of results) {
    if (r.status !== want || r.doc?.stillOver !== false) {
      failed = true;
      console.error(`${label}: exit ${r.status}, stillOver ${r.doc?.stillOver}: ${r.stderr.slice(0, 400)}`);
    }
  }
  const wall = median(results.map((r) => r.wall));
  const timed = median(results.map((r) => r.phases[phase]));
  const doc = results[0].doc;
  const column = (name) => fmt(results.map((r) => r.phases[name]));
  rows.push(
    `| ${label} | ${wall.toFixed(2)} s | ${median(results.map((r) => r.floorWall)).toFixed(2)} s | ${median(results.map((r) => r.ratio)).toFixed(2)}× | ${column("load")} | ${column("plan")} | ${column("write")} | ${phase} ≤ ${target} s: ${timed <= target ? "met" : "missed"} | ${Math.max(...results.map((r) => r.rss)).toFixed(0)} MB | ${doc?.tokens?.before?.toLocaleString("en-US")} → ${doc?.tokens?.after?.toLocaleString("en-US")} |`,
  );
  if (timed > target) failed = true;
}
console.log(
  `One Claude Code transcript of ${(size / 1e6).toFixed(1)} MB, ${steps} steps in its running turn; ${runs} runs each, node ${process.version}, ${os.cpus().length} cores.\n`,
);
console.log(
  "| command | wall (median) | floor (median) | ÷ floor (median of pairs) | start + load | plan | write | target | peak RSS (max) | tokens |\n|---|---|---|---|---|---|---|---|---|---|",
);
for (const row of rows) console.log(row);
rmSync(scratch, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
