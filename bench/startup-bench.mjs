#!/usr/bin/env node
// Start-up benchmark: the CPU time (user + system of the whole process, from bash's `times`, to the millisecond) of
// `recover --help` and of a scan of a one-session store, each against `node -e 0` (the yardstick: Node starting and
// doing nothing), in fresh processes, taken in rounds (yardstick, help, scan, first scan) so drift hits all alike.
// Target (start-up issue): each ≤ 2× the yardstick, judged on the median of the rounds' ratios. The code cache
// (src/launch/compile-cache.ts) lives in a folder of the bench's own: the warm-up writes it, as a user's first run
// does; "first scan" runs with an empty cache folder every round, to show what that first run costs (not judged).
//
//   node bench/startup-bench.mjs [--runs 9]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./stats.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const at = process.argv.indexOf("--runs");
const RUNS = at >= 0 ? Number(process.argv[at + 1]) : 9;
const TARGET = 2;

// One session of the demo Claude Code store, alone in a store of its own.
const ONE = path.join(ROOT, "bench/.data/one-session");
const SOURCE = path.join(ROOT, "fixtures/demo/claude/projects/-home-dana-code-fetchkit/214ff1c1-9d4f-48ea-9545-e5757b52e2f1.jsonl");
fs.mkdirSync(path.join(ONE, "projects/-home-dana-code-fetchkit"), { recursive: true });
fs.copyFileSync(SOURCE, path.join(ONE, "projects/-home-dana-code-fetchkit", path.basename(SOURCE)));

const SCAN = ["bin/recover", "session", "scan", "--all", "--store", path.relative(ROOT, ONE)];
const COMMANDS = { yardstick: ["-e", "0"], help: ["bin/recover", "--help"], scan: SCAN, firstScan: SCAN };
const CACHE = path.join(ROOT, "bench/.data/code-cache");
const EMPTY_CACHE = path.join(ROOT, "bench/.data/code-cache-empty");
fs.rmSync(CACHE, { recursive: true, force: true });

/**
 * CPU seconds (user + system) of one fresh `node …args`: bash's `times` prints its children's, to the millisecond
 * (GNU time prints hundredths, too coarse for a process of 0.06 s: every ratio came out as a quotient of 6).
 */
function cpu(name) {
  const args = COMMANDS[name];
  if (name === "firstScan") fs.rmSync(EMPTY_CACHE, { recursive: true, force: true });
  const env = { ...process.env, CI: "1", XDG_CACHE_HOME: name === "firstScan" ? EMPTY_CACHE : CACHE };
  const script = '"$0" "$@" >/dev/null 2>&1; status=$?; times; exit $status';
  const r = spawnSync("bash", ["-c", script, process.execPath, ...args], { cwd: ROOT, encoding: "utf8", env });
  if (r.status !== 0 && args !== SCAN) throw new Error(`node ${args.join(" ")} exited with ${r.status}`);
  // times: the shell's own user and system time, then its children's (`0m0.071s 0m0.004s`).
  const seconds = (field) => {
    const [, min, sec] = /^(\d+)m([\d.]+)s$/.exec(field);
    return Number(min) * 60 + Number(sec);
  };
  const [user, system] = r.stdout.trim().split("\n").at(-1).split(" ").map(seconds);
  return { cpu: user + system };
}

for (const name of Object.keys(COMMANDS)) cpu(name); // warm-up, untimed: the page cache, and the code cache written
const rounds = [];
for (let i = 0; i < RUNS; i++) rounds.push(Object.fromEntries(Object.keys(COMMANDS).map((name) => [name, cpu(name)])));

const problems = [];
const rows = ["help", "scan", "firstScan"].map((name) => {
  const ratios = rounds.map((r) => r[name].cpu / r.yardstick.cpu);
  const ratio = median(ratios);
  if (ratio > TARGET && name !== "firstScan") problems.push(`${name}: ${ratio.toFixed(2)}× the yardstick's CPU (target ≤ ${TARGET}×)`);
  const label = `\`node ${COMMANDS[name].join(" ")}\`${name === "firstScan" ? ", first run of the build (empty code cache; not judged)" : ""}`;
  return `| ${label} | ${median(rounds.map((r) => r[name].cpu)).toFixed(3)} s | ${ratio.toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |`;
});
console.log(`## Start-up: CPU against \`node -e 0\`

machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, Node ${process.version}, load ${os.loadavg()[0].toFixed(2)}; ${RUNS} rounds after one warm-up, CPU = user + system from bash's times

| command | CPU (median) | ÷ \`node -e 0\` (median of rounds, min–max) |
|---|---:|---:|
| \`node -e 0\` | ${median(rounds.map((r) => r.yardstick.cpu)).toFixed(3)} s | 1.00× |
${rows.join("\n")}
${problems.length ? `\n**Problems:**\n${problems.map((p) => `- ${p}`).join("\n")}\n` : ""}`);
process.exitCode = problems.length ? 1 : 0;
