#!/usr/bin/env node
// Scan benchmark for openclaw 2026.9's SQLite store: `recover session list` and `recover session scan --all --json` on
// one agent database of many sessions, against a floor that reads every event row of it and JSON.parses each one (the
// least any reader of the store does), in fresh processes. The database is made of sessions the real client wrote
// (fixtures/openclaw-2026.9-sqlite): each copied under new session ids and keys; every 50th is the corrupt-zstd one
// (one event_zstd row that fails its checksum, so zstd decoding and a finding are part of the run). Prints markdown.
//
//   npm run bench:openclaw
//   node bench/openclaw-sqlite-bench.mjs --sessions 4000 --runs 5
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { median } from "./stats.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const Database = require("better-sqlite3");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SESSIONS = arg("sessions", 2000);
const RUNS = arg("runs", 3);
const FIXTURES = path.join(ROOT, "fixtures/openclaw-2026.9-sqlite");
const DATA = path.join(ROOT, "bench/.data", `openclaw-sqlite-s${SESSIONS}`);
const DB = path.join(DATA, "agents/main/agent/openclaw-agent.sqlite");
/** The session tables, copied per session; the search index is left out (it plays no part in a scan). */
const TABLES = [
  "session_windows",
  "transcript_events",
  "transcript_event_identities",
  "session_transcript_active_events",
  "session_transcript_index_state",
  "transcript_rewrite_watermarks",
];

function unpack(name) {
  const file = path.join(DATA, `${name}.sqlite`);
  fs.writeFileSync(file, zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, `${name}.sqlite.gz`))));
  return file;
}

function generate() {
  if (fs.existsSync(DB)) return;
  fs.mkdirSync(path.dirname(DB), { recursive: true });
  const healthy = unpack("healthy-sqlite");
  const damaged = unpack("corrupt-zstd");
  fs.copyFileSync(healthy, DB);
  const db = new Database(DB);
  db.pragma("foreign_keys = OFF");
  db.pragma("journal_mode = WAL");
  db.exec(`ATTACH '${damaged}' AS damaged; ATTACH '${healthy}' AS healthy`);
  // The copies: every session table's rows with a new session id (and key), from one template or the other.
  const copy = db.transaction((i) => {
    const from = i % 50 === 49 ? "damaged" : "healthy";
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    const source = db.prepare(`SELECT session_id FROM ${from}.session_windows`).pluck().get();
    for (const table of TABLES) {
      const columns = db
        .prepare(`PRAGMA table_info(${table})`)
        .all()
        .map((c) => c.name);
      const select = columns.map((c) => (c === "session_id" ? "?" : c === "session_key" ? `'agent:main:bench-${i}'` : c)).join(", ");
      db.prepare(`INSERT INTO main.${table} (${columns.join(", ")}) SELECT ${select} FROM ${from}.${table} WHERE session_id = ?`).run(id, source);
    }
    const entry = JSON.stringify({ sessionId: id, updatedAt: 0 });
    db.prepare("INSERT INTO session_nodes (session_key, current_session_id, entry_json, entry_valid, updated_at) VALUES (?, ?, ?, 1, 0)").run(
      `agent:main:bench-${i}`,
      id,
      entry,
    );
  });
  for (let i = 0; i < SESSIONS - 1; i++) copy(i);
  db.exec("DETACH damaged; DETACH healthy");
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  fs.rmSync(healthy);
  fs.rmSync(damaged);
}

/** The floor: every event row read and its JSON parsed. */
const FLOOR = `
const Database = require(${JSON.stringify(require.resolve("better-sqlite3"))});
const db = new Database(${JSON.stringify(DB)}, { readonly: true });
let n = 0;
for (const row of db.prepare("SELECT event_json FROM transcript_events").iterate()) if (row.event_json !== null) { JSON.parse(row.event_json); n++; }
console.log(n);
`;

function time(command, args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: "1", CI: "true" } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${command} ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

generate();
const recover = path.join(ROOT, "bin/recover");
const events = new Database(DB, { readonly: true }).prepare("SELECT count(*) FROM transcript_events").pluck().get();
const cases = [
  ["floor: read + JSON.parse every event row", process.execPath, ["-e", FLOOR]],
  ["recover session list --json", process.execPath, [recover, "session", "list", "--json", "--store", DB]],
  ["recover session scan --all --json", process.execPath, [recover, "session", "scan", "--all", "--json", "--include-live", "--store", DB]],
];
const results = cases.map(([name, command, args]) => {
  const runs = Array.from({ length: RUNS }, () => time(command, args));
  return { name, ms: median(runs.map((r) => r.ms)), last: runs.at(-1).stdout };
});
const scan = JSON.parse(results[2].last);
const findings = scan.sessions.reduce((n, s) => n + s.findings.length, 0);
console.log(
  `openclaw SQLite store: ${SESSIONS} sessions, ${events} event rows (${(fs.statSync(DB).size / 1e6).toFixed(1)} MB); ${findings} findings; median of ${RUNS}\n`,
);
console.log("| command | median | × floor |\n|---|---|---|");
for (const r of results) console.log(`| ${r.name} | ${(r.ms / 1000).toFixed(2)} s | ${(r.ms / results[0].ms).toFixed(1)} |`);
