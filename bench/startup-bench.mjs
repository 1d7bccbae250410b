#!/usr/bin/env node
// Start-up benchmark: the CPU time (user + system, as GNU time reports it for the whole process) of
// `recover --help` and of a scan of a one-session store, each against `node -e 0` (the yardstick: Node starting and
// doing nothing), in fresh processes, taken in rounds (yardstick, help, scan) so drift hits all three alike.
// Target (start-up issue): each ≤ 2× the yardstick, judged on the median of the rounds' ratios.
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
const TIME = "/usr/bin/time";
if (!fs.existsSync(TIME)) {
  console.error(`${TIME} (GNU time) is needed to read each process's CPU time: apt install time`);
  process.exit(2);
}

// One session of the demo Claude Code store, alone in a store of its own.
const ONE = path.join(ROOT, "bench/.data/one-session");
const SOURCE = path.join(ROOT, "fixtures/demo/claude/projects/-home-dana-code-fetchkit/214ff1c1-9d4f-48ea-9545-e5757b52e2f1.jsonl");
fs.mkdirSync(path.join(ONE, "projects/-home-dana-code-fetchkit"), { recursive: true });
fs.copyFileSync(SOURCE, path.join(ONE, "projects/-home-dana-code-fetchkit", path.basename(SOURCE)));

const COMMANDS = {
  yardstick: ["-e", "0"],
  help: ["bin/recover", "--help"],
  scan: ["bin/recover", "session", "scan", "--all", "--store", path.relative(ROOT, ONE)],
};

/** CPU seconds (user + system) and wall seconds of one fresh `node …args`, from GNU time. */
function cpu(args) {
  const r = spawnSync(TIME, ["-f", "%U %S %e", process.execPath, ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, CI: "1" } });
  const last = r.stderr.trim().split("\n").at(-1) ?? "";
  const [user, system, wall] = last.split(" ").map(Number);
  if (r.status !== 0 && args !== COMMANDS.scan) throw new Error(`node ${args.join(" ")} exited with ${r.status}: ${r.stderr}`);
  return { cpu: user + system, wall };
}

for (const args of Object.values(COMMANDS)) cpu(args); // warm-up: the page cache, untimed
const rounds = [];
for (let i = 0; i < RUNS; i++) rounds.push(Object.fromEntries(Object.entries(COMMANDS).map(([name, args]) => [name, cpu(args)])));

const problems = [];
const rows = ["help", "scan"].map((name) => {
  const ratios = rounds.map((r) => r[name].cpu / r.yardstick.cpu);
  const ratio = median(ratios);
  if (ratio > TARGET) problems.push(`${name}: ${ratio.toFixed(2)}× the yardstick's CPU (target ≤ ${TARGET}×)`);
  return `| \`node ${COMMANDS[name].join(" ")}\` | ${median(rounds.map((r) => r[name].cpu)).toFixed(3)} s | ${ratio.toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |`;
});
console.log(`## Start-up: CPU against \`node -e 0\`

machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, Node ${process.version}, load ${os.loadavg()[0].toFixed(2)}; ${RUNS} rounds after one warm-up, CPU = user + system from GNU time

| command | CPU (median) | ÷ \`node -e 0\` (median of rounds, min–max) |
|---|---:|---:|
| \`node -e 0\` | ${median(rounds.map((r) => r.yardstick.cpu)).toFixed(3)} s | 1.00× |
${rows.join("\n")}
${problems.length ? `\n**Problems:**\n${problems.map((p) => `- ${p}`).join("\n")}\n` : ""}`);
process.exitCode = problems.length ? 1 : 0;
