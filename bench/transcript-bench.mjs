#!/usr/bin/env node
// Scan benchmark for Claude Code transcripts: `recover session scan --all --json` on a generated config dir
// (default 2,000 sessions, ~300,000 lines, long-tailed tool outputs, some damaged) against a floor that only reads
// every file and JSON.parses every line, in fresh processes with the same preload (peak RSS). Prints markdown.
//
//   npm run bench:transcripts
//   node bench/transcript-bench.mjs --sessions 4000 --turns 40 --runs 5 --seed 2
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./stats.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SESSIONS = arg("sessions", 2000);
const TURNS = arg("turns", 30);
const RUNS = arg("runs", 3);
const SEED = arg("seed", 1);
const DATA = path.join(ROOT, "bench/.data", `claude-s${SESSIONS}-t${TURNS}-seed${SEED}`);

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuid(rand) {
  const hex = () => Math.floor(rand() * 16).toString(16);
  const part = (n) => Array.from({ length: n }, hex).join("");
  return `${part(8)}-${part(4)}-4${part(3)}-a${part(3)}-${part(12)}`;
}

/** One session in Claude Code's own shape: prompt, thinking, tool_use, result, text per turn. */
function session(rand, index) {
  const id = uuid(rand);
  const cwd = `/home/dev/project-${index % 40}`;
  const lines = [];
  let parent = null;
  let t = Date.parse("2026-09-01T08:00:00Z") + index * 3_600_000;
  const push = (record) => {
    const uuidNow = uuid(rand);
    t += 1000 + Math.floor(rand() * 5000);
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        userType: "external",
        cwd,
        sessionId: id,
        version: "2.1.90",
        gitBranch: "main",
        ...record,
        uuid: uuidNow,
        timestamp: new Date(t).toISOString(),
      }),
    );
    parent = uuidNow;
    return uuidNow;
  };
  const damaged = index % 50 === 7;
  for (let turn = 0; turn < TURNS; turn++) {
    push({ type: "user", message: { role: "user", content: `Step ${turn}: look at src/module-${turn}.ts and fix what is wrong.` } });
    const msg = `msg_01${uuid(rand).replaceAll("-", "").slice(0, 22)}`;
    const base = { type: "assistant", requestId: `req_011${msg.slice(6, 20)}` };
    const message = (content, stop) => ({
      id: msg,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 9, output_tokens: 120 },
    });
    push({ ...base, message: message([{ type: "thinking", thinking: "Let me read the file first. ".repeat(8), signature: "Eq" + "A".repeat(300) }], null) });
    const callId = `toolu_01${uuid(rand).replaceAll("-", "").slice(0, 22)}`;
    const callUuid = push({
      ...base,
      message: message([{ type: "tool_use", id: callId, name: "Read", input: { file_path: `${cwd}/src/module-${turn}.ts` } }], "tool_use"),
    });
    if (damaged && turn === TURNS - 1) break; // interrupted mid-call: no result
    const size = Math.floor(200 + rand() ** 6 * 60_000);
    push({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: callId, content: "x".repeat(size) }] },
      toolUseResult: { type: "text", file: { filePath: `${cwd}/src/module-${turn}.ts`, numLines: Math.ceil(size / 40) } },
      sourceToolAssistantUUID: callUuid,
    });
    push({
      type: "assistant",
      requestId: `req_012${msg.slice(6, 20)}`,
      message: { ...message([{ type: "text", text: "Fixed the off-by-one in the loop bound." }], "end_turn"), id: `${msg}b` },
    });
  }
  let text = lines.join("\n") + "\n";
  if (damaged) text += lines[2].slice(0, 200); // a torn append at the tail
  return { id, cwd, text };
}

function generate() {
  if (fs.existsSync(path.join(DATA, "done"))) return;
  fs.rmSync(DATA, { recursive: true, force: true });
  const rand = mulberry32(SEED);
  for (let i = 0; i < SESSIONS; i++) {
    const { id, cwd, text } = session(rand, i);
    const dir = path.join(DATA, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${id}.jsonl`), text, { mode: 0o600 });
  }
  fs.writeFileSync(path.join(DATA, "done"), "");
}

// The least any reader must do: read each file, cut it into lines, decode and JSON.parse each line. Each line is
// decoded on its own (as recover does): decoding a whole file at once makes V8 build one two-byte string when a
// single line holds a non-ASCII character, which made an earlier floor 3x slower than this one.
const FLOOR = `
const fs = require("node:fs"), path = require("node:path");
let lines = 0, failures = 0;
for (const project of fs.readdirSync(path.join(process.argv[1], "projects"))) {
  const dir = path.join(process.argv[1], "projects", project);
  for (const name of fs.readdirSync(dir)) {
    const bytes = fs.readFileSync(path.join(dir, name));
    for (let start = 0; start < bytes.length; ) {
      let end = bytes.indexOf(10, start);
      if (end < 0) end = bytes.length;
      if (end > start) {
        lines++;
        try { JSON.parse(bytes.toString("utf8", start, end)); } catch { failures++; }
      }
      start = end + 1;
    }
  }
}
console.log(JSON.stringify({ lines, failures }));`;

function timed(args) {
  const rssFile = path.join(os.tmpdir(), `recover-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ["--import", path.join(ROOT, "bench/report-rss.mjs"), ...args], {
    env: { ...process.env, RECOVER_BENCH_RSS_FILE: rssFile },
    maxBuffer: 1 << 30,
    encoding: "utf8",
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const usage = JSON.parse(fs.readFileSync(rssFile, "utf8"));
  fs.rmSync(rssFile, { force: true });
  return { ms, rssMB: usage.maxRssKB / 1024, cpuMs: usage.cpuMs, status: run.status, stdout: run.stdout, stderr: run.stderr };
}

generate();
const files = SESSIONS;
const bytes = fs
  .readdirSync(path.join(DATA, "projects"))
  .reduce((n, p) => n + fs.readdirSync(path.join(DATA, "projects", p)).reduce((m, f) => m + fs.statSync(path.join(DATA, "projects", p, f)).size, 0), 0);
const floorArgs = ["-e", FLOOR, DATA];
const scanArgs = [path.join(ROOT, "bin/recover"), "session", "scan", "--all", "--json", "--exit-zero", "--store", DATA];
timed(floorArgs); // warm the page cache
const floors = [];
const scans = [];
for (let i = 0; i < RUNS; i++) {
  floors.push(timed(floorArgs));
  scans.push(timed(scanArgs));
}
const bad = scans.find((s) => s.status !== 0);
if (bad) {
  console.error(`scan failed (exit ${bad.status}): ${bad.stderr}`);
  process.exit(1);
}
const report = JSON.parse(scans[0].stdout);
const problems = [];
if (new Set(scans.map((s) => s.stdout)).size !== 1) problems.push("the scan's output differed between runs");
// --reference DIR: a built checkout of another commit, whose scan must print the same bytes.
const referenceAt = process.argv.indexOf("--reference");
const reference = referenceAt >= 0 ? process.argv[referenceAt + 1] : undefined;
let identical;
if (reference) {
  const theirs = spawnSync(process.execPath, [path.join(reference, "bin/recover"), ...scanArgs.slice(1)], { maxBuffer: 1 << 30, encoding: "utf8" });
  identical = theirs.stdout === scans[0].stdout;
  if (!identical) problems.push(`the scan's --json differs from the reference build's (${reference})`);
}
const findings = report.sessions.reduce((n, s) => n + s.findings.length, 0);
const lines = JSON.parse(floors[0].stdout).lines;
const floorMs = median(floors.map((f) => f.ms));
const scanMs = median(scans.map((s) => s.ms));
// The judged figure: the median of each run's scan ÷ the floor run just before it (drift cancels in a pair).
const pairs = scans.map((s, i) => s.ms / floors[i].ms);
const ratio = median(pairs);
// Not judged: the scan's CPU (every thread) for the floor's. Wall ratio = this ÷ the scan's speed-up from its threads.
const cpuPairs = scans.map((s, i) => s.cpuMs / floors[i].cpuMs);
const scanRss = Math.max(...scans.map((s) => s.rssMB));
const TARGET_RATIO = 1.2;
const TARGET_RSS_MB = 300;
if (ratio > TARGET_RATIO) problems.push(`scan took ${ratio.toFixed(2)}× the floor (median of pairs; target ≤ ${TARGET_RATIO}×)`);
if (scanRss > TARGET_RSS_MB) problems.push(`scan peaked at ${scanRss.toFixed(0)} MB RSS (target ≤ ${TARGET_RSS_MB} MB)`);
const expectedDamaged = Array.from({ length: SESSIONS }, (_, i) => i).filter((i) => i % 50 === 7).length;
const damagedFound = report.sessions.filter(
  (s) => s.findings.some((f) => f.rule === "tool-result-missing") && s.findings.some((f) => f.rule === "unreadable-record"),
).length;
const load = os.loadavg()[0].toFixed(2);
console.log(`## Claude Code transcripts: scan --all

store: ${files.toLocaleString("en-US")} sessions, ${lines.toLocaleString("en-US")} lines, ${(bytes / 1e6).toFixed(0)} MB (\`${path.relative(ROOT, DATA)}\`)
machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, load ${load}

| | median wall | peak RSS | CPU, all threads (median; not judged) |
|---|---|---|---|
| floor (read + JSON.parse every line) | ${(floorMs / 1000).toFixed(2)} s | ${Math.max(...floors.map((f) => f.rssMB)).toFixed(0)} MB | ${(median(floors.map((f) => f.cpuMs)) / 1000).toFixed(2)} s |
| \`recover session scan --all --json\` | ${(scanMs / 1000).toFixed(2)} s | ${scanRss.toFixed(0)} MB | ${(median(scans.map((s) => s.cpuMs)) / 1000).toFixed(2)} s |
| scan ÷ floor (median of pairs) | ${ratio.toFixed(2)}× (${pairs.map((x) => x.toFixed(2)).join(", ")}) | | ${median(cpuPairs).toFixed(2)}× (${cpuPairs.map((x) => x.toFixed(2)).join(", ")}) |

findings: ${findings}; damaged sessions found ${damagedFound} of ${expectedDamaged} planted (${RUNS} runs); the same --json in every run${identical === undefined ? "" : identical ? ", byte-identical to the reference build's" : ", DIFFERENT from the reference build's"}
targets: scan ≤ ${TARGET_RATIO}× floor: ${ratio <= TARGET_RATIO ? "met" : "MISSED"}; peak RSS ≤ ${TARGET_RSS_MB} MB: ${scanRss <= TARGET_RSS_MB ? "met" : "MISSED"}${problems.length ? `\n\n**Problems:**\n${problems.map((p) => `- ${p}`).join("\n")}` : ""}`);
if (damagedFound !== expectedDamaged || problems.length > 0) process.exit(1);
