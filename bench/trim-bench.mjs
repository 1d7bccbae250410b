#!/usr/bin/env node
// Times `recover context trim` on ONE huge opencode session: a seeded SQLite store whose single session has ≥5,000
// parts, tool outputs long-tailed (most a few hundred characters, some 40–200 KB), an estimate far over a
// 200,000-token window, and stored usage that tracks the real prompt (as a 1M-window model would have recorded it
// before the user moved to a 200k one). Targets (the context-trim issue): plan ≤ 1 s, write ≤ 2 s, memory bounded.
// The phases are timed inside the process from the CLI's phase marks (src/cli/phases.ts): plan = loaded → planned of
// a --dry-run, write = writing → written of a --yes (check the rows, back up, apply, all in one transaction). The
// wall time (spawn to exit: Node's start, reading the store, the report) is printed beside them.
//
//   npm run build && node bench/trim-bench.mjs [--runs 3] [--parts 6000] [--seed 7] [--force]
//
// Each run is a fresh process: `node --import ./bench/report-rss.mjs bin/recover context trim <id> --dry-run --json
// --store <dir>` on the generated store, and the same with `--yes` (instead of --dry-run) on a fresh copy of it, with
// a fresh XDG_STATE_HOME each time (backups and the calibration memory go there). Wall time = spawn to exit; peak RSS
// = process.resourceUsage().maxRSS at exit (bench/report-rss.mjs). Prints a markdown report and writes it to
// bench/.data/trim-last-result.md (+ .json). Exits 1 when a run fails, gives a wrong result, or misses a target.
import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { makeIdMinter, makeRng } from "./generate-store.mjs";
import { median } from "./stats.mjs";

const SELF = fileURLToPath(import.meta.url);
const ROOT = join(dirname(SELF), "..");
const DATA_DIR = join(ROOT, "bench", ".data");
const CLI_MAIN = join(ROOT, "dist/main.cjs");
const RSS_PRELOAD = pathToFileURL(join(ROOT, "bench/report-rss.mjs")).href;
// Any change to this file invalidates stores it generated before.
const GENERATOR_VERSION = createHash("sha256").update(readFileSync(SELF)).digest("hex").slice(0, 12);
const TARGET_PLAN_MS = 1_000;
const TARGET_WRITE_MS = 2_000;
const TARGET_RSS_MB = 300;
const START_MS = Date.UTC(2026, 4, 4, 8, 30); // well in the past: no live turn, no 60-second write guard

const { values } = parseArgs({ options: { runs: { type: "string" }, parts: { type: "string" }, seed: { type: "string" }, force: { type: "boolean" } } });
const int = (v, dflt, name) => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${v}`);
  return n;
};
const runs = int(values.runs, 3, "runs");
const partsTarget = int(values.parts, 6_000, "parts");
const seed = int(values.seed, 7, "seed");
if (partsTarget < 5_000) throw new Error("--parts must be at least 5000 (the issue asks for a session of ≥5,000 parts)");

// ---------------------------------------------------------------------------------------------
// Deterministic content

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const HEX = "0123456789abcdef";
const WORDS = ["worker", "batch", "invoice", "ledger", "queue", "retry", "shard", "export", "cursor", "payload", "account", "upload", "session", "router"];

function corpora(rng) {
  const w = () => rng.pick(WORDS);
  const build = (size, line) => {
    const out = [];
    let n = 0;
    while (n < size) {
      const l = line();
      out.push(l);
      n += l.length + 1;
    }
    return out.join("\n") + "\n";
  };
  const log = build(1 << 20, () => {
    const ts = `2026-05-0${rng.int(1, 4)}T0${rng.int(0, 9)}:${rng.int(10, 59)}:${rng.int(10, 59)}Z`;
    switch (rng.int(0, 4)) {
      case 0:
        return `${ts} WARN  ${w()} ${rng.int(1, 9999)} slow: took ${rng.int(900, 9000)}ms`;
      case 1:
        return `    at ${w()}${rng.int(1, 99)} (file:///srv/app/dist/${w()}/${w()}.js:${rng.int(1, 900)}:${rng.int(1, 80)})`;
      case 2:
        return `${ts} ERROR ${w()} id=${rng.chars(HEX, 8)} failed: ECONNRESET after ${rng.int(1, 5)} retries`;
      default:
        return `${ts} INFO  ${w()} ${rng.int(1, 9999)} processed ${rng.int(1, 500)} ${w()}s ok`;
    }
  });
  const code = build(1 << 20, () => {
    const ind = "  ".repeat(rng.int(0, 3));
    switch (rng.int(0, 4)) {
      case 0:
        return `export async function ${w()}${rng.int(1, 99)}(${w()}: ${w()}Options): Promise<void> {`;
      case 1:
        return `${ind}const ${w()} = await db.${w()}.findMany({ where: { id: ${rng.int(1, 999)} } })`;
      case 2:
        return `${ind}if (!${w()}) throw new Error("${w()} missing")`;
      case 3:
        return `${ind}}`;
      default:
        return `${ind}log.debug("${w()}", { ${w()}: ${rng.int(0, 9999)} })`;
    }
  });
  return { log, code };
}

/** `len` characters of `corpus` from a line start, repeating past its end. */
function excerpt(rng, corpus, len) {
  let out = "";
  while (out.length < len) {
    const start = corpus.indexOf("\n", rng.int(0, corpus.length - 1)) + 1;
    out += corpus.slice(start, start + (len - out.length));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The store: one project, one session

const SCHEMA = `
CREATE TABLE project (id text PRIMARY KEY NOT NULL, worktree text NOT NULL, vcs text, name text, icon_url text,
  icon_url_override text, icon_color text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_initialized integer, sandboxes text NOT NULL, commands text);
CREATE TABLE session (id text PRIMARY KEY NOT NULL, project_id text NOT NULL REFERENCES project(id) ON DELETE cascade,
  workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL,
  version text NOT NULL, share_url text, summary_additions integer, summary_deletions integer, summary_files integer,
  summary_diffs text, metadata text, cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL,
  tokens_output integer DEFAULT 0 NOT NULL, tokens_reasoning integer DEFAULT 0 NOT NULL,
  tokens_cache_read integer DEFAULT 0 NOT NULL, tokens_cache_write integer DEFAULT 0 NOT NULL, revert text,
  permission text, agent text, model text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_compacting integer, time_archived integer);
CREATE TABLE message (id text PRIMARY KEY NOT NULL, session_id text NOT NULL REFERENCES session(id) ON DELETE cascade,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY NOT NULL, message_id text NOT NULL REFERENCES message(id) ON DELETE cascade,
  session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_message_idx ON part (message_id);
CREATE INDEX part_session_idx ON part (session_id);`;

function toolCall(rng, text, worktree) {
  // Long tail: most outputs a few hundred characters, 1.5% between 40 and 200 KB.
  const size = rng.chance(0.015) ? rng.int(40_000, 200_000) : rng.logNormal(500, 1.2, 20, 30_000);
  const tool = rng.pick(["bash", "bash", "read", "read", "grep", "edit"]);
  const file = `src/${rng.pick(WORDS)}/${rng.pick(WORDS)}.ts`;
  if (tool === "read") {
    const lines = excerpt(rng, text.code, size).split("\n");
    const output = `<file>\n${lines.map((l, i) => `${String(i + 1).padStart(5, "0")}| ${l}`).join("\n")}\n\n(End of file - total ${lines.length} lines)\n</file>`;
    return { tool, input: { filePath: `${worktree}/${file}` }, title: file, output, metadata: { preview: lines.slice(0, 20).join("\n"), truncated: false } };
  }
  if (tool === "edit") {
    return {
      tool,
      input: { filePath: `${worktree}/${file}`, oldString: excerpt(rng, text.code, 120), newString: excerpt(rng, text.code, 160) },
      title: file,
      output: "Edit applied successfully.",
      metadata: { diagnostics: {} },
    };
  }
  if (tool === "grep") {
    const pattern = `${rng.pick(WORDS)}${rng.int(1, 99)}`;
    return {
      tool,
      input: rng.chance(0.5) ? { pattern } : { pattern, include: "*.ts" },
      title: pattern,
      output: excerpt(rng, text.code, size),
      metadata: { matches: rng.int(0, 90), truncated: false },
    };
  }
  const command = rng.pick([
    "npm test",
    "npx tsc --noEmit",
    "npm run build",
    `cat logs/${rng.pick(WORDS)}.log`,
    "git diff --stat",
    `journalctl -u ${rng.pick(WORDS)} -n 5000`,
  ]);
  const output = excerpt(rng, text.log, size);
  return {
    tool,
    input: { command, description: command.split(" ")[0] },
    title: command,
    output,
    metadata: { output: output.slice(0, 30_000), exit: rng.chance(0.8) ? 0 : 1 },
  };
}

function generate(file) {
  const rng = makeRng(seed);
  const mint = makeIdMinter(rng);
  const text = corpora(rng);
  const worktree = "/home/dev/src/etl";
  const projectID = rng.chars(HEX, 40);
  const sessionID = mint("ses", START_MS, true);
  const rows = [];
  let t = START_MS + 2_000;
  let parts = 0;
  let messages = 0;
  let sentChars = 40_000; // a system prompt and tool schemas of about 10,000 tokens
  const addPart = (messageID, start, end, data) => {
    rows.push(["part", [mint("prt", start), messageID, sessionID, start, end, JSON.stringify(data)]]);
    parts++;
  };
  const totals = { cost: 0, input: 0, output: 0, read: 0, write: 0 };
  for (let turn = 0; parts < partsTarget; turn++) {
    t += rng.logNormal(60_000, 1.2, 3_000, 3_600_000);
    const userID = mint("msg", t);
    rows.push([
      "message",
      [
        userID,
        sessionID,
        t,
        t,
        JSON.stringify({ role: "user", time: { created: t }, agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" } }),
      ],
    ]);
    messages++;
    const prompt = `Turn ${turn + 1}: ${excerpt(rng, text.code, rng.logNormal(200, 0.8, 20, 3_000))
      .split("\n")
      .join(" ")}`;
    addPart(userID, t, t, { type: "text", text: prompt });
    sentChars += prompt.length;
    let steps = 1;
    while (steps < 12 && rng.chance(0.7)) steps++;
    for (let step = 0; step < steps; step++) {
      const last = step === steps - 1;
      t += rng.logNormal(900, 0.6, 100, 20_000);
      const created = t;
      const messageID = mint("msg", t);
      const messageRow = [messageID, sessionID, t, t, null];
      rows.push(["message", messageRow]);
      messages++;
      addPart(messageID, t, t, { type: "step-start", snapshot: rng.chars(HEX, 40) });
      let written = 0;
      if (rng.chance(0.5)) {
        const reasoning = excerpt(rng, text.code, rng.logNormal(300, 0.8, 20, 6_000));
        const start = t;
        t += rng.int(200, 6_000);
        addPart(messageID, start, t, {
          type: "reasoning",
          text: reasoning,
          metadata: { anthropic: { signature: rng.chars(BASE62, 320) } },
          time: { start, end: t },
        });
        written += reasoning.length;
      }
      if (last || rng.chance(0.4)) {
        const reply = excerpt(rng, text.code, rng.logNormal(last ? 600 : 150, 0.8, 10, 8_000));
        const start = t;
        t += rng.int(100, 8_000);
        addPart(messageID, start, t, { type: "text", text: reply, time: { start, end: t } });
        written += reply.length;
      }
      const tools = last ? 0 : rng.int(1, 3);
      for (let i = 0; i < tools; i++) {
        t += rng.int(5, 300);
        const call = toolCall(rng, text, worktree);
        const end = t + rng.logNormal(400, 1.5, 5, 300_000);
        addPart(messageID, t, end, {
          type: "tool",
          callID: `toolu_01${rng.chars(BASE62, 22)}`,
          tool: call.tool,
          state: { status: "completed", input: call.input, output: call.output, title: call.title, metadata: call.metadata, time: { start: t, end } },
        });
        t = end;
        written += JSON.stringify(call.input).length;
        sentChars += call.output.length + JSON.stringify(call.input).length;
      }
      sentChars += written;
      // The stored usage of this step: the prompt it sent (everything so far, ~3% over characters / 4).
      const prompt = Math.round((sentChars / 4) * 1.03);
      const tokens = {
        total: 0,
        input: rng.int(2, 40),
        output: Math.round(written / 4) + rng.int(5, 60),
        reasoning: 0,
        cache: { read: prompt, write: rng.int(50, 3_000) },
      };
      tokens.cache.read = Math.max(0, prompt - tokens.input - tokens.cache.write);
      tokens.total = tokens.input + tokens.output + tokens.cache.read + tokens.cache.write;
      const cost = (tokens.input * 3 + tokens.output * 15 + tokens.cache.read * 0.3 + tokens.cache.write * 3.75) / 1e6;
      t += rng.int(5, 80);
      const finish = last ? "stop" : "tool-calls";
      addPart(messageID, t, t, { type: "step-finish", reason: finish, snapshot: rng.chars(HEX, 40), cost, tokens });
      messageRow[3] = t;
      messageRow[4] = JSON.stringify({
        role: "assistant",
        parentID: userID,
        modelID: "claude-sonnet-4-5",
        providerID: "anthropic",
        mode: "build",
        agent: "build",
        path: { cwd: worktree, root: worktree },
        cost,
        tokens,
        time: { created, completed: t },
        finish,
      });
      totals.cost += cost;
      totals.input += tokens.input;
      totals.output += tokens.output;
      totals.read += tokens.cache.read;
      totals.write += tokens.cache.write;
    }
  }
  rmSync(file, { force: true });
  const db = new Database(file);
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.exec(SCHEMA);
  db.transaction(() => {
    db.prepare("INSERT INTO project VALUES (?,?,?,?,?,?,?,?,?,?,?,?)").run(
      projectID,
      worktree,
      "git",
      "etl",
      null,
      null,
      null,
      START_MS,
      t,
      START_MS,
      "[]",
      null,
    );
    db.prepare(`INSERT INTO session VALUES (${Array(29).fill("?").join(",")})`).run(
      sessionID,
      projectID,
      null,
      null,
      "brave-otter",
      worktree,
      "",
      "Nightly ETL: a very long investigation",
      "1.18.31",
      null,
      null,
      null,
      null,
      null,
      null,
      totals.cost,
      totals.input,
      totals.output,
      0,
      totals.read,
      totals.write,
      null,
      null,
      "build",
      JSON.stringify({ id: "claude-sonnet-4-5", providerID: "anthropic" }),
      START_MS,
      t,
      null,
      null,
    );
    const insert = { message: db.prepare("INSERT INTO message VALUES (?,?,?,?,?)"), part: db.prepare("INSERT INTO part VALUES (?,?,?,?,?,?)") };
    for (const [table, values] of rows) insert[table].run(values);
  })();
  db.pragma("journal_mode = WAL"); // as opencode runs it
  db.close();
  return { sessionID, parts, messages, chars: sentChars };
}

function ensureStore() {
  const dir = join(DATA_DIR, `trim-p${partsTarget}-seed${seed}`);
  const file = join(dir, "opencode.db");
  const paramsFile = join(dir, "params.json");
  const wanted = { generatorVersion: GENERATOR_VERSION, partsTarget, seed };
  if (!values.force && existsSync(paramsFile) && existsSync(file)) {
    const params = JSON.parse(readFileSync(paramsFile, "utf8"));
    if (Object.entries(wanted).every(([k, v]) => params[k] === v) && statSync(file).size === params.dbBytes) return { dir, file, params, reused: true };
  }
  mkdirSync(dir, { recursive: true });
  for (const f of ["opencode.db", "opencode.db-wal", "opencode.db-shm", "params.json"]) rmSync(join(dir, f), { force: true });
  const t0 = performance.now();
  const partial = join(dir, "opencode.db.partial");
  const stats = generate(partial);
  renameSync(partial, file);
  const params = { ...wanted, ...stats, genMs: Math.round(performance.now() - t0), dbBytes: statSync(file).size };
  writeFileSync(paramsFile, JSON.stringify(params, null, 2) + "\n");
  return { dir, file, params, reused: false };
}

// ---------------------------------------------------------------------------------------------
// Runs

const cliBuilt = existsSync(CLI_MAIN);
if (!cliBuilt) {
  console.error(`${relative(ROOT, CLI_MAIN)} does not exist: run \`npm run build\` first.`);
  process.exit(1);
}
console.error(`store: one session, ≥${partsTarget} parts, seed ${seed}`);
const store = ensureStore();
console.error(`${store.reused ? "reusing" : "generated"} ${relative(ROOT, store.file)} (${(store.params.dbBytes / 2 ** 20).toFixed(1)} MiB)`);
const id = store.params.sessionID;
const loadAtStart = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(" / ");
const tmp = mkdtempSync(join(os.tmpdir(), "recover-trim-bench-"));
let seq = 0;

/** A fresh process: `node --import report-rss.mjs bin/recover context trim <id> …`; wall time, peak RSS, the JSON. */
function run(storeDir, extra, okStatus) {
  const n = ++seq;
  const out = join(tmp, `${n}.out`);
  const rssFile = join(tmp, `${n}.rss`);
  const state = join(tmp, `state-${n}`);
  const args = ["--import", RSS_PRELOAD, "bin/recover", "context", "trim", id, ...extra, "--json", "--store", storeDir];
  const fd = openSync(out, "w");
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", fd, "pipe"],
    timeout: 10 * 60_000,
    env: { ...process.env, RECOVER_BENCH_RSS_FILE: rssFile, XDG_STATE_HOME: state, NO_COLOR: "1" },
  });
  const ms = performance.now() - t0;
  closeSync(fd);
  if (!okStatus.includes(r.status))
    throw new Error(
      `\`node ${args.join(" ")}\` exited with ${r.signal ?? r.status}:\n${String(r.stderr).slice(-4000)}${readFileSync(out, "utf8").slice(0, 2000)}`,
    );
  const report = existsSync(rssFile) ? JSON.parse(readFileSync(rssFile, "utf8")) : { maxRssKB: NaN, marks: {} };
  const { marks } = report;
  const phases = { load: marks.loaded, plan: marks.planned - marks.loaded, write: marks.written - marks.writing };
  return { ms, rssMB: report.maxRssKB / 1024, phases, status: r.status, doc: JSON.parse(readFileSync(out, "utf8")) };
}

/** A copy of the store for a run that writes (the db only: it was checkpointed when generated). */
function copyStore() {
  const dir = mkdtempSync(join(tmp, "store-"));
  copyFileSync(store.file, join(dir, "opencode.db"));
  return dir;
}

const problems = [];
const check = (ok, what) => {
  if (!ok) problems.push(what);
  return ok;
};

console.error("warm-up: one untimed dry run");
run(store.dir, ["--dry-run"], [0, 1]);
const dry = [];
const yes = [];
for (let i = 0; i < runs; i++) {
  // alternate, so drift on the machine hits both alike
  console.error(`run ${i + 1}/${runs}: --dry-run`);
  dry.push(run(store.dir, ["--dry-run"], [1]));
  const copy = copyStore();
  console.error(`run ${i + 1}/${runs}: --yes on a copy`);
  yes.push(run(copy, ["--yes"], [0, 1]));
  rmSync(copy, { recursive: true, force: true });
}
rmSync(tmp, { recursive: true, force: true });

// ---------------------------------------------------------------------------------------------
// Report

const sec = (ms) => `${(ms / 1000).toFixed(2)} s`;
const mb = (x) => `${Math.round(x)} MB`;
const n = (x) => x.toLocaleString("en-US");
const d = dry[0].doc;
const y = yes[0].doc;
check(d.tokens.before > 200_000, `the estimate before (${d.tokens.before}) is not over 200,000 tokens`);
check(
  dry.every((r) => JSON.stringify(r.doc.tokens) === JSON.stringify(d.tokens)),
  "the dry runs disagree on the tokens",
);
check(
  yes.every((r) => JSON.stringify(r.doc.tokens) === JSON.stringify(y.tokens)),
  "the --yes runs disagree on the tokens",
);
check(y.tokens.after === d.tokens.after, `--yes ended at ${y.tokens.after} tokens, the dry run planned ${d.tokens.after}`);
check(
  yes.every((r) => r.doc.backup !== null),
  "a --yes run wrote no backup",
);
check(!y.stillOver && y.tokens.after <= y.tokens.target, `still over the target after --yes (${y.tokens.after} > ${y.tokens.target})`);
const dryMs = median(dry.map((r) => r.ms));
const yesMs = median(yes.map((r) => r.ms));
const dryRss = Math.max(...dry.map((r) => r.rssMB));
const yesRss = Math.max(...yes.map((r) => r.rssMB));
const phase = (rs, name) => median(rs.map((r) => r.phases[name]));
const planMs = phase(dry, "plan");
const writeMs = phase(yes, "write");
check(planMs <= TARGET_PLAN_MS, `planning took ${sec(planMs)} (target ≤ ${sec(TARGET_PLAN_MS)})`);
check(writeMs <= TARGET_WRITE_MS, `writing took ${sec(writeMs)} (target ≤ ${sec(TARGET_WRITE_MS)})`);
check(Math.max(dryRss, yesRss) <= TARGET_RSS_MB, `peak RSS ${mb(Math.max(dryRss, yesRss))} (target ≤ ${TARGET_RSS_MB} MB)`);

const cpus = os.cpus();
const machine =
  `${cpus[0]?.model ?? "unknown CPU"}, nproc ${os.availableParallelism?.() ?? cpus.length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ` +
  `${os.type()} ${os.release()}, Node ${process.version}; load average at start ${loadAtStart} (1/5/15 min)`;
const argv = process.argv.slice(2).join(" ");
const strategies = (doc) => doc.strategies.map((s) => `${s.id} ${n(s.records)} (−${n(s.tokens)} tokens)`).join(", ");
const md =
  `# recover context trim benchmark (${new Date().toISOString()})

- Command: \`node bench/trim-bench.mjs${argv ? ` ${argv}` : ""}\` (${runs} runs each, after one untimed warm-up)
- Machine: ${machine}
- Store: \`${relative(ROOT, store.file)}\`, ${(store.params.dbBytes / 2 ** 20).toFixed(1)} MiB, one session (${id}): ${n(store.params.messages)} messages, ` +
  `${n(store.params.parts)} parts, ${n(store.params.chars)} characters sent; ${store.reused ? "reused" : `generated in ${sec(store.params.genMs)}`} (seed ${seed})
- Tokens (calibrated): ${n(d.tokens.before)} → ${n(d.tokens.after)} (limit ${n(d.tokens.limit)}, target ${n(d.tokens.target)}); ${d.tokens.method}
- Plan: ${d.summary.changes} record changes; ${strategies(d)}
- Wall time = spawn to exit; start + load, plan, write: from the CLI's phase marks; peak RSS = \`process.resourceUsage().maxRSS\` at exit.

| Run | Wall time (median) | start + load | plan | write | Peak RSS (max) | Target |
|---|---:|---:|---:|---:|---:|---|
| \`context trim <id> --dry-run --json\` | ${sec(dryMs)} | ${sec(phase(dry, "load"))} | ${sec(planMs)} | – | ${mb(dryRss)} | plan ≤ ${sec(TARGET_PLAN_MS)}: ${planMs <= TARGET_PLAN_MS ? "met" : "MISSED"} |
| \`context trim <id> --yes --json\` (fresh copy each run) | ${sec(yesMs)} | ${sec(phase(yes, "load"))} | ${sec(phase(yes, "plan"))} | ${sec(writeMs)} | ${mb(yesRss)} | write ≤ ${sec(TARGET_WRITE_MS)}: ${writeMs <= TARGET_WRITE_MS ? "met" : "MISSED"} |

- Dry runs: ${dry.map((r) => `${sec(r.ms)} / ${mb(r.rssMB)}`).join(", ")}
- --yes runs: ${yes.map((r) => `${sec(r.ms)} / ${mb(r.rssMB)}`).join(", ")} (exit ${yes.map((r) => r.status).join(", ")})
${problems.length ? `\n**Problems:**\n${problems.map((p) => `- ${p}`).join("\n")}\n` : ""}`;

console.log(md);
mkdirSync(DATA_DIR, { recursive: true });
writeFileSync(join(DATA_DIR, "trim-last-result.md"), md);
writeFileSync(
  join(DATA_DIR, "trim-last-result.json"),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine,
      runs,
      store: { path: relative(ROOT, store.file), ...store.params },
      tokens: d.tokens,
      strategies: d.strategies,
      changes: d.summary.changes,
      dryRun: {
        medianMs: Math.round(dryMs),
        planMs: Math.round(planMs),
        maxRssMB: Math.round(dryRss),
        runs: dry.map((r) => [Math.round(r.ms), Math.round(r.rssMB)]),
      },
      yes: {
        medianMs: Math.round(yesMs),
        writeMs: Math.round(writeMs),
        maxRssMB: Math.round(yesRss),
        runs: yes.map((r) => [Math.round(r.ms), Math.round(r.rssMB)]),
      },
      problems,
    },
    null,
    2,
  ) + "\n",
);
process.exitCode = problems.length ? 1 : 0;
