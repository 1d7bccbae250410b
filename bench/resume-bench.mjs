#!/usr/bin/env node
// `npm run bench:resume` (and part of `npm run bench`): how long `recover session resume` takes from the command to
// the agent starting, on one opencode session of ~10,000 parts (issue 41: ≤ 1 s), against the same session's own
// scan, in the same run. `--print` stands for the start: it is the moment the agent would be run.
//
//   node bench/resume-bench.mjs [--runs 5]
//
// Each run times, on a fresh copy of the generated store (its planted damage intact):
//   scan    recover session scan <id> --json --exit-zero
//   repair  recover session resume <id> --print --yes   (plans, backs up, writes, then prints the command)
//   again   the same once more                           (nothing left to repair: the everyday case)
// Exits 1 when `repair` or `again` misses the 1 s target (the median of the runs).
import { spawnSync } from "node:child_process";
import Database from "better-sqlite3";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ensureStore, storeOptions } from "./generate-store.mjs";
import { median } from "./stats.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const TARGET_MS = 1000;
const { values } = parseArgs({ options: { runs: { type: "string" } } });
const runs = Number(values.runs ?? 5);
// Sessions of up to 3,200 messages (about 10,000 parts each): the largest is timed.
const store = ensureStore(storeOptions({ sessions: "1", "parts-target": "30000", seed: "1", "max-messages": "3200", name: "resume-s1-m3200" }, {}));
const tmp = mkdtempSync(join(os.tmpdir(), "recover-resume-bench-"));
const env = { ...process.env, XDG_STATE_HOME: join(tmp, "state"), NO_COLOR: "1", CI: "true" };

function time(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, "bin/recover"), ...args], { cwd: ROOT, env, encoding: "utf8", maxBuffer: 256 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`recover ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return { ms, stdout: r.stdout };
}

const listed = JSON.parse(time(["session", "list", "--json", "--store", store.dir]).stdout);
const biggest = listed.sessions.reduce((a, b) => (b.messages > a.messages ? b : a));
const { id } = biggest;
/** The session's own parts, counted in its database. */
const partsOf = (dbPath) => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare("SELECT count(*) AS n FROM part WHERE session_id = ?").get(id).n;
  } finally {
    db.close();
  }
};
const sessionParts = partsOf(store.dbPath);
const timings = { scan: [], repair: [], again: [] };
for (let i = 0; i < runs; i++) {
  const copy = join(tmp, `run-${i}`);
  mkdirSync(copy, { recursive: true });
  copyFileSync(store.dbPath, join(copy, "opencode.db"));
  timings.scan.push(time(["session", "scan", id, "--json", "--exit-zero", "--store", copy]).ms);
  const repaired = time(["session", "resume", id, "--print", "--yes", "--force", "--store", copy]);
  timings.repair.push(repaired.ms);
  if (!repaired.stdout.trim().endsWith(`opencode --session ${id}`)) throw new Error(`resume printed no command: ${repaired.stdout.slice(-500)}`);
  timings.again.push(time(["session", "resume", id, "--print", "--store", copy]).ms);
}
rmSync(tmp, { recursive: true, force: true });
const m = Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, median(v)]));
console.log(`## session resume, one opencode session of ${sessionParts ?? "?"} parts (${biggest.messages} messages; the store: ${store.params.stats.parts} parts), ${runs} runs, medians

| step | median | vs its scan |
|---|---|---|
| scan (\`session scan <id> --json\`) | ${m.scan.toFixed(0)} ms | 1.00× |
| resume with the repair (\`session resume <id> --print --yes\`) | ${m.repair.toFixed(0)} ms | ${(m.repair / m.scan).toFixed(2)}× |
| resume, nothing to repair | ${m.again.toFixed(0)} ms | ${(m.again / m.scan).toFixed(2)}× |

Target: resume ≤ ${TARGET_MS} ms from the command to the agent starting. Load at the end: ${os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(" / ")}.`);
if (m.repair > TARGET_MS || m.again > TARGET_MS) {
  console.error(`resume missed the ${TARGET_MS} ms target`);
  process.exit(1);
}
