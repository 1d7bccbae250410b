#!/usr/bin/env node
// End-to-end check of `recover session import` with the real opencode clients: sessions a legacy opencode (1.1.65,
// JSON tree in `$XDG_DATA_HOME/opencode/storage/`) left behind are invisible to opencode >= 1.16 (SQLite
// `opencode.db`, no import of storage/ any more; anomalyco/opencode #13654); after `recover session import` the real
// 1.18.33 client lists them, continues one of them and sends its whole history, and `recover session restore` undoes
// the import.
//
// What it proves, in ONE scratch work dir (one HOME / XDG set, one git project dir, one loopback mock of the Anthropic
// Messages API, scripts/mock-messages-api.mjs):
//
//   1. opencode 1.1.65 runs twice in the project: "What is the capital of France?" (text answer) and "List the files
//      here with bash." (text + tool_use bash `ls`, its result, a final text). Two sessions land in storage/.
//   2. opencode 1.18.33 runs once in the same project and data dir: a new session; it creates opencode.db.
//      `opencode session list --format json` does NOT list the two 1.1.65 sessions (the bug), and opencode.db's
//      session table holds only the 1.18.33 session (the client did not import storage/ itself).
//   3. `recover session import --all --from <data>/opencode/storage --store <data>/opencode --yes --json`.
//      It adds exactly the two sessions' rows (every other row of every table unchanged), their message / part `data`
//      equal the storage/ files minus the ids that became columns. Right after it the data dir is copied (for 7).
//   4. `opencode session list --format json` lists both imported sessions, by id and title.
//   5. `opencode run --session <imported bash session>` with a new prompt: the client exits 0, the request it sends
//      carries the imported history (old prompt, tool_use + tool_result of bash, old answers) followed by the new
//      prompt, and opencode.db holds the new user message and the reply in that session.
//   6. `recover session scan --all --store <data>/opencode --json` finds nothing, nor does it with --include-live
//      (every session here is minutes old, so the plain scan leaves each last turn alone).
//   7. On the copy from step 3: `recover session restore <backup-id> --store <copy> --yes` removes the two imported
//      sessions (and their messages and parts) and leaves the 1.18.33 session byte for byte as it was: the copy then
//      equals opencode.db before the import, every table and row; the real opencode.db is not touched.
// It also compares the rows recover inserted with the rows 1.18.33 wrote itself (session columns, message / part
// `data` keys) and prints the differences (information, not a check).
//
// Install the clients (see capture-opencode-legacy.mjs and capture-opencode-request.mjs):
//
//   npm install --prefix /tmp/oc-legacy opencode-ai@1.1.65
//   npm install --prefix /tmp/oc-client opencode-ai@1.18.33
//
// Run:
//
//   node scripts/check-opencode-import.mjs
//   node scripts/check-opencode-import.mjs --legacy /tmp/oc-legacy/node_modules/.bin/opencode \
//        --client /tmp/oc-client/node_modules/.bin/opencode --recover bin/recover \
//        --out /tmp/oc-import-check
//
// Options: --legacy / --client (the 1.1.65 and 1.18.33 binaries; defaults above), --recover (the recover bin to test;
// default this repository's bin/recover, built with `npm run build`), --work <dir> (scratch root, wiped per run; default
// /tmp/oc-import-work), --out <dir> (artifacts, wiped per run; default /tmp/oc-import-check), --model <provider/id>
// (default anthropic/claude-sonnet-4-5), --timeout <s> per client run (default 120).
//
// Output in --out: requests.jsonl (every request the clients made: phase, main, method, path, headers without
// credentials, body), <phase>.stdout/.stderr of every client and recover run, session-list-before.json /
// session-list-after.json (`opencode session list --format json` before and after the import), recover-import.json,
// recover-scan.json, recover-scan-include-live.json, recover-restore.json (recover's --json documents),
// continuing-request.json (the full body of the first main-loop request of the continued session),
// rows-after-import.json (session, message and part rows of every session, imported and native),
// rows-after-continue.json, row-differences.json (imported vs native shapes),
// opencode-log/ (1.18.33's log files), summary.json (every check with its outcome). Exit 0 when every check passes,
// 1 otherwise.
//
// Isolation: as the capture scripts. HOME and XDG_{DATA,CONFIG,STATE,CACHE}_HOME under --work, cwd <work>/project (a
// git repo with one commit of fixed author and date), config $XDG_CONFIG_HOME/opencode/opencode.json: provider
// anthropic baseURL = the mock on 127.0.0.1, autoupdate false, share disabled, permission bash/edit allow (1.1.65 has
// no --auto). Env for both: ANTHROPIC_API_KEY=sk-ant-test, OPENCODE_DISABLE_MODELS_FETCH, OPENCODE_DISABLE_AUTOUPDATE,
// OPENCODE_DISABLE_SHARE, OPENCODE_DISABLE_LSP_DOWNLOAD; 1.1.65 also OPENCODE_DISABLE_DEFAULT_PLUGINS (it has no
// --pure), 1.18.33 also OPENCODE_DISABLE_CHANNEL_DB (always opencode.db), `--pure --auto` on `run` (and `--title` on
// the new session, so no title request). recover runs with XDG_STATE_HOME=<work>/recover-state, so its backups stay
// under --work. Plain Node ESM; better-sqlite3 is loaded from the repo's node_modules.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { reply, runCollected, startScriptedMock, text, toolUse } from "./clients/api/messages.mjs";
import { listFiles, opencodeEnv, treeSessions, writeOpencodeConfig } from "./opencode-sandbox.mjs";

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
function openDb(file, opts) {
  const Database = require(path.join(HERE, "..", "node_modules", "better-sqlite3"));
  return new Database(file, opts);
}

// ---------------------------------------------------------------------------------------------------------------
// The runs: prompts, and the mock's scripted replies (mock-messages-api.mjs) for each.

const PROJECT_FILES = { "notes.txt": "alpha\nbeta\n" };

const LEGACY_RUNS = [
  {
    phase: "legacy-1",
    prompt: "What is the capital of France?",
    title: "Capital of France",
    replies: [reply([text("The capital of France is Paris.")])],
  },
  {
    phase: "legacy-2",
    prompt: "List the files here with bash.",
    title: "List project files",
    replies: [
      reply([text("I'll list them."), toolUse("toolu_mock_bash_01", "bash", { command: "ls", description: "List files in the project" })]),
      reply([text("The project holds one file: notes.txt.")]),
    ],
  },
];
const NATIVE_RUN = { phase: "native", prompt: "Say hello.", title: "Native 1.18 session", replies: [reply([text("Hello! How can I help?")])] };
const CONTINUE_RUN = { phase: "continue", prompt: "What did ls print?", replies: [reply([text("It printed notes.txt.")])] };

// ---------------------------------------------------------------------------------------------------------------
// Helpers.

function parseArgs(argv) {
  const a = {
    legacy: "/tmp/oc-legacy/node_modules/.bin/opencode",
    client: "/tmp/oc-client/node_modules/.bin/opencode",
    recover: path.join(HERE, "..", "bin", "recover"),
    work: "/tmp/oc-import-work",
    out: "/tmp/oc-import-check",
    model: "anthropic/claude-sonnet-4-5",
    timeout: 120,
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => argv[++i];
    if (k === "--legacy") a.legacy = v();
    else if (k === "--client") a.client = v();
    else if (k === "--recover") a.recover = v();
    else if (k === "--work") a.work = v();
    else if (k === "--out") a.out = v();
    else if (k === "--model") a.model = v();
    else if (k === "--timeout") a.timeout = Number(v());
    else throw new Error("unknown argument " + k);
  }
  return a;
}

/** Run a program, save its stdout/stderr as <out>/<name>.stdout/.stderr. */
/** A client run to its end, its output kept in `out/<name>.stdout` and `.stderr` and returned as text. */
async function run(cmd, args, { cwd, env, timeoutMs, out, name }) {
  const r = await runCollected(cmd, args, { cwd, env, timeoutMs });
  fs.writeFileSync(path.join(out, `${name}.stdout`), r.stdout);
  fs.writeFileSync(path.join(out, `${name}.stderr`), r.stderr);
  return { code: r.code, signal: r.signal, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8") };
}

function parseJson(s) {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

function withDb(file, fn) {
  if (!fs.existsSync(file)) return fn(null);
  const db = openDb(file, { readonly: true, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const tableExists = (db, t) => !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t);

/** session, message and part rows of every session (data JSON parsed), plus the project table. */
function dumpRows(dbFile) {
  return withDb(dbFile, (db) => {
    if (!db) return null;
    const parse = (r) => (r && typeof r.data === "string" ? { ...r, data: parseJson(r.data) ?? r.data } : r);
    const sessions = db.prepare("SELECT * FROM session ORDER BY time_created, id").all();
    return {
      project: tableExists(db, "project") ? db.prepare("SELECT * FROM project").all() : null,
      sessions: sessions.map((s) => ({
        row: s,
        messages: db
          .prepare("SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id")
          .all(s.id)
          .map((m) => ({
            ...parse(m),
            parts: db.prepare("SELECT * FROM part WHERE message_id = ? ORDER BY id").all(m.id).map(parse),
          })),
      })),
    };
  });
}

/** Every row of every table (sqlite_* excluded), in rowid order where there is one. */
function dumpAll(dbFile) {
  return withDb(dbFile, (db) => {
    const out = {};
    for (const { name, sql } of db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all()) {
      const order = /WITHOUT ROWID/i.test(sql ?? "") ? "" : " ORDER BY rowid";
      out[name] = db.prepare(`SELECT * FROM "${name}"${order}`).all();
    }
    return out;
  });
}

/** `after` without the rows of `sessionIds` (session rows by id, other tables by session_id); tables that differ. */
function tablesChangedBesides(before, after, sessionIds) {
  const ours = (table, r) => (table === "session" ? sessionIds.includes(r.id) : "session_id" in r && sessionIds.includes(r.session_id));
  const changed = [];
  for (const t of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = (after[t] ?? []).filter((r) => !ours(t, r));
    const b = (before[t] ?? []).filter((r) => !ours(t, r));
    if (!isDeepStrictEqual(a, b)) changed.push(`${t} (${b.length} -> ${a.length} rows)`);
  }
  return changed;
}

const typeOf = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Key paths with their value types, one level into nested objects (time.created, model.providerID, ...). */
function shape(obj, prefix = "", depth = 2) {
  const out = {};
  if (typeOf(obj) !== "object") return out;
  for (const [k, v] of Object.entries(obj)) {
    const p = prefix ? `${prefix}.${k}` : k;
    out[p] = typeOf(v);
    if (depth > 1 && typeOf(v) === "object") Object.assign(out, shape(v, p, depth - 1));
  }
  return out;
}

function diffShapes(native, imported) {
  const d = [];
  for (const k of new Set([...Object.keys(native), ...Object.keys(imported)])) {
    if (!(k in imported)) d.push(`${k}: native ${native[k]}, imported absent`);
    else if (!(k in native)) d.push(`${k}: native absent, imported ${imported[k]}`);
    else if (native[k] !== imported[k]) d.push(`${k}: native ${native[k]}, imported ${imported[k]}`);
  }
  return d;
}

/**
 * Compare the rows recover inserted with the rows 1.18.33 wrote itself: session columns (null or not, type; equal
 * values for columns such as project_id / directory that should agree for one project), message `data` shape by
 * role, part `data` shape by type. Key union per group, so a key one side never writes shows up.
 */
function compareRows(dump, importedIds, nativeIds) {
  const out = { session: {}, sessionValues: {}, message: {}, part: {} };
  const sess = (ids) => dump.sessions.filter((s) => ids.includes(s.row.id));
  const nat = sess(nativeIds);
  const imp = sess(importedIds);
  const union = (rows, f) => rows.reduce((acc, r) => Object.assign(acc, f(r)), {});
  out.session = diffShapes(
    union(nat, (s) => shape(s.row, "", 1)),
    union(imp, (s) => shape(s.row, "", 1)),
  );
  // Columns whose values should agree for sessions of one project (and the ones that differ, for the report).
  for (const col of Object.keys(nat[0]?.row ?? {})) {
    const nv = nat.map((s) => s.row[col]);
    const iv = imp.map((s) => s.row[col]);
    if (["id", "title", "slug", "time_created", "time_updated", "summary_additions", "summary_deletions", "summary_files", "summary_diffs"].includes(col))
      continue;
    if (![...nv, ...iv].every((v) => v === nv[0])) out.sessionValues[col] = { native: nv, imported: iv };
  }
  const group = (rows, kind) => {
    const g = {};
    for (const s of rows)
      for (const m of s.messages) {
        if (kind === "message") {
          const k = m.data?.role ?? "?";
          g[k] = Object.assign(
            g[k] ?? {},
            shape(m.data),
            shape(Object.fromEntries(Object.entries(m).filter(([c]) => !["data", "parts"].includes(c))), "<col>", 1),
          );
        } else
          for (const p of m.parts) {
            const k = p.data?.type === "tool" ? `tool:${p.data?.state?.status}` : (p.data?.type ?? "?");
            g[k] = Object.assign(g[k] ?? {}, shape(p.data, "", 3), shape(Object.fromEntries(Object.entries(p).filter(([c]) => c !== "data")), "<col>", 1));
          }
      }
    return g;
  };
  for (const kind of ["message", "part"]) {
    const gn = group(nat, kind);
    const gi = group(imp, kind);
    for (const k of new Set([...Object.keys(gn), ...Object.keys(gi)])) {
      if (!gn[k]) out[kind][k] = ["written by the import only (1.18.33 wrote none of this kind here)"];
      else if (!gi[k]) out[kind][k] = ["written by 1.18.33 only"];
      else {
        const d = diffShapes(gn[k], gi[k]);
        if (d.length) out[kind][k] = d;
      }
    }
  }
  return out;
}

/** A request's messages as flat blocks: { i, role, type, text | id/name | tool_use_id/content }. */
function flatBlocks(messages) {
  const out = [];
  for (const [i, m] of (messages ?? []).entries()) {
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    for (const b of blocks) {
      let content = b.content;
      if (Array.isArray(content)) content = content.map((c) => c.text ?? JSON.stringify(c)).join("\n");
      out.push({ i, role: m.role, type: b.type, text: b.text, id: b.id, name: b.name, tool_use_id: b.tool_use_id, content });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Driver.

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const checks = [];
  const check = (id, ok, detail) => {
    checks.push({ id, ok: !!ok, detail });
    console.error(`${ok ? "PASS" : "FAIL"} ${id}${detail ? ": " + detail : ""}`);
    return !!ok;
  };
  const info = (s) => console.error(`     ${s}`);

  const work = path.resolve(args.work);
  const out = path.resolve(args.out);
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const dirs = Object.fromEntries(["home", "data", "config", "state", "cache", "project", "recover-state"].map((d) => [d, path.join(work, d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const project = dirs.project;
  for (const [name, content] of Object.entries(PROJECT_FILES)) fs.writeFileSync(path.join(project, name), content);
  const gitEnv = {
    ...process.env,
    HOME: dirs.home,
    GIT_AUTHOR_NAME: "mock",
    GIT_AUTHOR_EMAIL: "mock@example.invalid",
    GIT_COMMITTER_NAME: "mock",
    GIT_COMMITTER_EMAIL: "mock@example.invalid",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  };
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: project, env: gitEnv });
  execFileSync("git", ["add", "-A"], { cwd: project, env: gitEnv });
  execFileSync("git", ["commit", "-q", "-m", "init"], { cwd: project, env: gitEnv });

  const state = { seq: 0, phase: "", replies: [], title: "", log: path.join(out, "requests.jsonl") };
  const server = await startScriptedMock(state, () => ({ phase: state.phase }));
  const port = server.address().port;
  writeOpencodeConfig(dirs, { model: args.model, port, permission: { bash: "allow", edit: "allow" } });
  const baseEnv = opencodeEnv(dirs);
  const legacyEnv = { ...baseEnv, OPENCODE_DISABLE_DEFAULT_PLUGINS: "1" };
  const clientEnv = { ...baseEnv, OPENCODE_DISABLE_CHANNEL_DB: "1" };
  const recoverEnv = { ...process.env, HOME: dirs.home, XDG_DATA_HOME: dirs.data, XDG_STATE_HOME: dirs["recover-state"], NO_COLOR: "1" };
  const timeoutMs = args.timeout * 1000;
  const dataDir = path.join(dirs.data, "opencode");
  const storage = path.join(dataDir, "storage");
  const dbFile = path.join(dataDir, "opencode.db");
  const copyDataDir = path.join(work, "data-copy", "opencode");
  const recover = (name, argv) => run(process.execPath, [args.recover, ...argv], { cwd: work, env: recoverEnv, timeoutMs, out, name });
  const sessionList = async (name) => {
    const r = await run(args.client, ["session", "list", "--format", "json"], { cwd: project, env: clientEnv, timeoutMs, out, name });
    const doc = parseJson(r.stdout.trim() || "[]");
    fs.writeFileSync(path.join(out, `${name}.json`), JSON.stringify(doc ?? { unparsed: r.stdout }, null, 2) + "\n");
    return { ...r, doc };
  };
  const countRows = (file, sql, ...p) => withDb(file, (db) => (db ? db.prepare(sql).get(...p).n : null));

  const legacy = [];
  let nativeId = null;
  let importDoc = null;
  try {
    // ---- 1. two 1.1.65 sessions in storage/ --------------------------------------------------------------------
    for (const r of LEGACY_RUNS) {
      Object.assign(state, { phase: r.phase, replies: [...r.replies], title: r.title });
      const before = new Set(treeSessions(storage).map((s) => s.id));
      const res = await run(args.legacy, ["run", "--format", "json", "--model", args.model, "--", ...r.prompt.split(" ")], {
        cwd: project,
        env: legacyEnv,
        timeoutMs,
        out,
        name: r.phase,
      });
      const created = treeSessions(storage).filter((s) => !before.has(s.id));
      check(
        `1 ${r.phase}: opencode 1.1.65 made one session in storage/`,
        res.code === 0 && created.length === 1 && state.replies.length === 0,
        `exit ${res.code}${res.signal ? " " + res.signal : ""}, new sessions ${created.map((s) => s.id).join(", ") || "none"}, unused replies ${state.replies.length}`,
      );
      if (created.length !== 1) throw new Error(`${r.phase}: no session (see ${out}/${r.phase}.stderr)`);
      legacy.push({ ...r, id: created[0].id });
    }
    // Titles are written after the reply; read them at the end.
    for (const l of legacy) l.title = treeSessions(storage).find((s) => s.id === l.id)?.title;
    check("1 no opencode.db yet (1.1.65 writes only storage/)", !fs.existsSync(dbFile), fs.existsSync(dbFile) ? "opencode.db exists" : "");
    info(`legacy sessions: ${legacy.map((l) => `${l.id} "${l.title}"`).join(", ")}`);
    const bashSession = legacy[1];

    // ---- 2. a 1.18.33 session; the legacy ones are invisible -----------------------------------------------------
    Object.assign(state, { phase: NATIVE_RUN.phase, replies: [...NATIVE_RUN.replies], title: "" });
    const nat = await run(
      args.client,
      ["run", "--pure", "--format", "json", "--model", args.model, "--auto", "--title", NATIVE_RUN.title, "--", ...NATIVE_RUN.prompt.split(" ")],
      { cwd: project, env: clientEnv, timeoutMs, out, name: NATIVE_RUN.phase },
    );
    const nativeRows = withDb(dbFile, (db) => (db ? db.prepare("SELECT id, title FROM session").all() : []));
    nativeId = nativeRows.find((s) => !legacy.some((l) => l.id === s.id))?.id ?? null;
    check(
      "2 opencode 1.18.33 run exits 0 and creates opencode.db with its session",
      nat.code === 0 && fs.existsSync(dbFile) && nativeId,
      `exit ${nat.code}, session ${nativeId}`,
    );
    check(
      "2 1.18.33 did not import storage/ (session table holds only its own session)",
      nativeRows.length === 1 && !nativeRows.some((s) => legacy.some((l) => l.id === s.id)),
      `${nativeRows.length} row(s): ${nativeRows.map((s) => s.id).join(", ")}`,
    );
    const list1 = await sessionList("session-list-before");
    const ids1 = Array.isArray(list1.doc) ? list1.doc.map((s) => s.id) : [];
    check("2 `opencode session list` runs (exit 0, JSON)", list1.code === 0 && Array.isArray(list1.doc), `exit ${list1.code}, ${ids1.length} session(s)`);
    check("2 `opencode session list` lists the 1.18.33 session", ids1.includes(nativeId), ids1.join(", "));
    check(
      "2 `opencode session list` does NOT list the 1.1.65 sessions (the bug)",
      legacy.every((l) => !ids1.includes(l.id)),
      legacy.map((l) => `${l.id} ${ids1.includes(l.id) ? "listed" : "absent"}`).join(", "),
    );

    // ---- 3. recover import ---------------------------------------------------------------------------------------
    const allBeforeImport = dumpAll(dbFile);
    const imp = await recover("recover-import", ["session", "import", "--all", "--from", storage, "--store", dataDir, "--yes", "--json"]);
    importDoc = parseJson(imp.stdout);
    fs.writeFileSync(path.join(out, "recover-import.json"), JSON.stringify(importDoc ?? { unparsed: imp.stdout }, null, 2) + "\n");
    check(
      "3 recover session import exits 0 with a JSON document and a backup id",
      imp.code === 0 && importDoc?.backup?.id,
      `exit ${imp.code}, backup ${importDoc?.backup?.id}`,
    );
    const importedRows = withDb(dbFile, (db) => db.prepare("SELECT id, title FROM session").all());
    check(
      "3 opencode.db now holds both legacy sessions and the 1.18.33 one",
      importedRows.length === 3 && legacy.every((l) => importedRows.some((s) => s.id === l.id)),
      importedRows.map((s) => `${s.id} "${s.title}"`).join(", "),
    );
    for (const l of legacy) {
      const msgs = countRows(dbFile, "SELECT count(*) n FROM message WHERE session_id = ?", l.id);
      const parts = countRows(dbFile, "SELECT count(*) n FROM part WHERE session_id = ?", l.id);
      const lm = fs.existsSync(path.join(storage, "message", l.id)) ? fs.readdirSync(path.join(storage, "message", l.id)).length : 0;
      const lp = fs.existsSync(path.join(storage, "message", l.id))
        ? fs.readdirSync(path.join(storage, "message", l.id)).reduce((n, f) => n + listFiles(path.join(storage, "part", f.replace(/\.json$/, ""))).length, 0)
        : 0;
      check(
        `3 ${l.id}: every message and part of storage/ imported`,
        msgs === lm && parts === lp,
        `db ${msgs} messages / ${parts} parts, storage ${lm} / ${lp}`,
      );
    }
    const allAfterImport = dumpAll(dbFile);
    const added = Object.entries(allAfterImport)
      .map(([t, r]) => [t, r.length - (allBeforeImport[t]?.length ?? 0)])
      .filter(([, n]) => n);
    const legacyIds = legacy.map((l) => l.id);
    const changedByImport = tablesChangedBesides(allBeforeImport, allAfterImport, legacyIds);
    check(
      "3 the import only added rows of the imported sessions (every other row of every table unchanged)",
      changedByImport.length === 0,
      `rows added: ${added.map(([t, n]) => `${t} +${n}`).join(", ")}${changedByImport.length ? "; other rows changed in " + changedByImport.join(", ") : ""}`,
    );
    // Fidelity: message / part `data` is the legacy file without the ids that became columns.
    const unfaithful = [];
    withDb(dbFile, (db) => {
      for (const l of legacy) {
        for (const m of db.prepare("SELECT * FROM message WHERE session_id = ?").all(l.id)) {
          const { id, sessionID, ...rest } = JSON.parse(fs.readFileSync(path.join(storage, "message", l.id, m.id + ".json"), "utf8"));
          if (id !== m.id || sessionID !== m.session_id || !isDeepStrictEqual(rest, JSON.parse(m.data))) unfaithful.push(m.id);
        }
        for (const p of db.prepare("SELECT * FROM part WHERE session_id = ?").all(l.id)) {
          const { id, sessionID, messageID, ...rest } = JSON.parse(fs.readFileSync(path.join(storage, "part", p.message_id, p.id + ".json"), "utf8"));
          if (id !== p.id || sessionID !== p.session_id || messageID !== p.message_id || !isDeepStrictEqual(rest, JSON.parse(p.data))) unfaithful.push(p.id);
        }
      }
    });
    check("3 imported message / part data equal the storage/ files (minus the ids that are columns)", unfaithful.length === 0, unfaithful.join(", "));
    const dumpImport = dumpRows(dbFile);
    fs.writeFileSync(path.join(out, "rows-after-import.json"), JSON.stringify(dumpImport, null, 2) + "\n");
    const diffs = compareRows(
      dumpImport,
      legacy.map((l) => l.id),
      [nativeId],
    );
    // Copy of the data dir right after the import, for step 7 (no process has the db open now).
    fs.mkdirSync(path.dirname(copyDataDir), { recursive: true });
    fs.cpSync(dataDir, copyDataDir, { recursive: true });

    // ---- 4. the imported sessions are listed ----------------------------------------------------------------------
    const list2 = await sessionList("session-list-after");
    const byId = new Map((Array.isArray(list2.doc) ? list2.doc : []).map((s) => [s.id, s]));
    check(
      "4 `opencode session list` runs after the import (exit 0, JSON)",
      list2.code === 0 && Array.isArray(list2.doc),
      `exit ${list2.code}, ${byId.size} session(s)`,
    );
    for (const l of legacy)
      check(
        `4 ${l.id} listed with its title "${l.title}"`,
        byId.has(l.id) && byId.get(l.id).title === l.title,
        byId.has(l.id) ? `title "${byId.get(l.id).title}"` : "absent",
      );
    check("4 the 1.18.33 session still listed", byId.has(nativeId), "");
    const nativeEntry = byId.get(nativeId);
    check(
      "4 imported sessions listed under the same projectId and directory as the 1.18.33 one",
      legacy.every((l) => byId.get(l.id)?.projectId === nativeEntry?.projectId && byId.get(l.id)?.directory === nativeEntry?.directory),
      legacy.map((l) => `${l.id} ${byId.get(l.id)?.projectId} ${byId.get(l.id)?.directory}`).join(", "),
    );

    // ---- 5. continue the imported bash session --------------------------------------------------------------------
    const msgsBefore = countRows(dbFile, "SELECT count(*) n FROM message WHERE session_id = ?", bashSession.id);
    Object.assign(state, { phase: CONTINUE_RUN.phase, replies: [...CONTINUE_RUN.replies], title: "" });
    const cont = await run(
      args.client,
      ["run", "--pure", "--format", "json", "--model", args.model, "--auto", "--session", bashSession.id, "--", ...CONTINUE_RUN.prompt.split(" ")],
      { cwd: project, env: clientEnv, timeoutMs, out, name: CONTINUE_RUN.phase },
    );
    const events = cont.stdout.split("\n").filter(Boolean).map(parseJson).filter(Boolean);
    const errorEvents = events.filter((e) => e.type === "error");
    check(
      "5 `opencode run --session <imported>` exits 0 without error events",
      cont.code === 0 && errorEvents.length === 0,
      `exit ${cont.code}${cont.signal ? " " + cont.signal : ""}${errorEvents.length ? ", errors: " + JSON.stringify(errorEvents).slice(0, 400) : ""}`,
    );
    const requests = fs
      .readFileSync(state.log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const creq = requests.find((q) => q.phase === CONTINUE_RUN.phase && q.main);
    if (creq) fs.writeFileSync(path.join(out, "continuing-request.json"), JSON.stringify(creq.body, null, 2) + "\n");
    check(
      "5 the continuing request reached the mock",
      !!creq,
      creq ? `seq ${creq.seq}, ${creq.body.messages?.length} messages` : "no main-loop request in phase continue",
    );
    if (creq) {
      const blocks = flatBlocks(creq.body.messages);
      // The expected history in order: each item must be found after the previous one.
      const expect = [
        ["old prompt (user text)", (b) => b.role === "user" && b.type === "text" && b.text?.includes(LEGACY_RUNS[1].prompt)],
        ["old answer before the tool (assistant text)", (b) => b.role === "assistant" && b.type === "text" && b.text === "I'll list them."],
        ["tool_use bash toolu_mock_bash_01", (b) => b.role === "assistant" && b.type === "tool_use" && b.id === "toolu_mock_bash_01" && b.name === "bash"],
        [
          "tool_result of toolu_mock_bash_01 holding `ls` output",
          (b) => b.role === "user" && b.type === "tool_result" && b.tool_use_id === "toolu_mock_bash_01" && String(b.content).includes("notes.txt"),
        ],
        ["old final answer (assistant text)", (b) => b.role === "assistant" && b.type === "text" && b.text === "The project holds one file: notes.txt."],
        ["the new prompt (user text)", (b) => b.role === "user" && b.type === "text" && b.text?.includes(CONTINUE_RUN.prompt)],
      ];
      let from = 0;
      const found = [];
      for (const [label, pred] of expect) {
        const k = blocks.findIndex((b, j) => j >= from && pred(b));
        found.push(`${label}: ${k < 0 ? "MISSING" : `messages[${blocks[k].i}]`}`);
        if (k >= 0) from = k + 1;
        check(`5 continuing request carries ${label} in order`, k >= 0, k < 0 ? "not found after the previous item" : `messages[${blocks[k].i}]`);
      }
      const last = creq.body.messages.at(-1);
      check(
        "5 the new prompt is the last message",
        last?.role === "user" && flatBlocks([last]).some((b) => b.type === "text" && b.text?.includes(CONTINUE_RUN.prompt)),
        `last role ${last?.role}`,
      );
      check(
        "5 no other session's history leaked in",
        !blocks.some((b) => (b.text ?? "").includes(LEGACY_RUNS[0].prompt) || (b.text ?? "").includes(NATIVE_RUN.prompt)),
        "",
      );
      info(
        `request messages: ${creq.body.messages
          .map(
            (m) =>
              `${m.role}[${flatBlocks([m])
                .map((b) => b.type)
                .join(",")}]`,
          )
          .join(" ")}`,
      );
    }
    const dumpCont = dumpRows(dbFile);
    fs.writeFileSync(path.join(out, "rows-after-continue.json"), JSON.stringify(dumpCont, null, 2) + "\n");
    const contSession = dumpCont.sessions.find((s) => s.row.id === bashSession.id);
    const newMsgs = contSession?.messages.slice(msgsBefore) ?? [];
    const newUser = newMsgs.find((m) => m.data?.role === "user" && m.parts.some((p) => p.data?.type === "text" && p.data.text?.includes(CONTINUE_RUN.prompt)));
    const newAsst = newMsgs.find(
      (m) => m.data?.role === "assistant" && m.parts.some((p) => p.data?.type === "text" && p.data.text === "It printed notes.txt."),
    );
    check(
      "5 opencode.db holds the new user message and the reply in the imported session",
      !!newUser && !!newAsst,
      `${msgsBefore} -> ${contSession?.messages.length} messages; new user ${newUser?.id ?? "missing"}, reply ${newAsst?.id ?? "missing"}`,
    );
    check(
      "5 the client made no new session (it continued the imported one)",
      dumpCont.sessions.length === 3,
      dumpCont.sessions.map((s) => s.row.id).join(", "),
    );
    // Rows 1.18.33 wrote into the imported session are the best reference: same session, same kinds.
    const diffsCont = !contSession
      ? { session: [], sessionValues: {}, message: {}, part: {} }
      : compareRows(
          {
            ...dumpCont,
            sessions: [
              { row: contSession.row, messages: contSession.messages.slice(0, msgsBefore) },
              { row: { ...contSession.row, id: "<native rows of the continued session>" }, messages: newMsgs },
            ],
          },
          [bashSession.id],
          ["<native rows of the continued session>"],
        );
    fs.writeFileSync(
      path.join(out, "row-differences.json"),
      JSON.stringify({ importedVsNativeSession: diffs, importedVsNativeRowsInContinuedSession: diffsCont }, null, 2) + "\n",
    );
    info("rows recover inserted vs rows 1.18.33 wrote (row-differences.json):");
    for (const [label, d] of [
      ["imported sessions vs the 1.18.33 session", diffs],
      ["in the continued session, imported messages vs those 1.18.33 appended", diffsCont],
    ]) {
      info(`  ${label}:`);
      if (label.startsWith("imported sessions")) {
        for (const l of d.session) info(`    session column ${l}`);
        for (const [c, v] of Object.entries(d.sessionValues))
          info(`    session.${c}: native ${JSON.stringify(v.native)}, imported ${JSON.stringify(v.imported)}`);
      }
      for (const kind of ["message", "part"]) for (const [k, ls] of Object.entries(d[kind])) for (const l of ls) info(`    ${kind} ${k}: ${l}`);
    }

    // ---- 6. recover scan --------------------------------------------------------------------------------------------
    const scan = await recover("recover-scan", ["session", "scan", "--all", "--store", dataDir, "--json"]);
    const scanDoc = parseJson(scan.stdout);
    fs.writeFileSync(path.join(out, "recover-scan.json"), JSON.stringify(scanDoc ?? { unparsed: scan.stdout }, null, 2) + "\n");
    const findings = (scanDoc?.sessions ?? []).flatMap((s) => (s.findings ?? []).map((f) => ({ session: s.id ?? s.sessionId, ...f })));
    check(
      "6 recover session scan --all finds nothing",
      scan.code === 0 && scanDoc && findings.length === 0,
      `exit ${scan.code}, ${scanDoc?.sessions?.length ?? "?"} session(s) scanned, ${findings.length} finding(s)${findings.length ? ": " + findings.map((f) => `${f.session} ${f.rule ?? f.ruleId ?? f.id}`).join(", ") : ""}`,
    );

    // Every session here is minutes old, so the plain scan leaves each one's last turn alone (it may still be written);
    // --include-live judges those turns too.
    const scanLive = await recover("recover-scan-include-live", ["session", "scan", "--all", "--include-live", "--store", dataDir, "--json"]);
    const scanLiveDoc = parseJson(scanLive.stdout);
    fs.writeFileSync(path.join(out, "recover-scan-include-live.json"), JSON.stringify(scanLiveDoc ?? { unparsed: scanLive.stdout }, null, 2) + "\n");
    const liveFindings = (scanLiveDoc?.sessions ?? []).flatMap((s) => (s.findings ?? []).map((f) => ({ session: s.id, ...f })));
    check(
      "6 recover session scan --all --include-live finds nothing either",
      scanLive.code === 0 && scanLiveDoc && liveFindings.length === 0,
      `exit ${scanLive.code}, ${scanLiveDoc?.sessions?.length ?? "?"} session(s), ${liveFindings.length} finding(s)${liveFindings.length ? ": " + liveFindings.map((f) => `${f.session} ${f.rule ?? f.ruleId ?? f.id}`).join(", ") : ""}`,
    );

    // ---- 7. undo on the copy made right after the import -----------------------------------------------------------
    const copyDb = path.join(copyDataDir, "opencode.db");
    const nativeBefore = dumpRows(copyDb).sessions.find((s) => s.row.id === nativeId);
    const realBeforeRestore = dumpAll(dbFile);
    const rest = await recover("recover-restore", ["session", "restore", importDoc?.backup?.id ?? "<no backup id>", "--store", copyDataDir, "--yes", "--json"]);
    const restDoc = parseJson(rest.stdout);
    fs.writeFileSync(path.join(out, "recover-restore.json"), JSON.stringify(restDoc ?? { unparsed: rest.stdout }, null, 2) + "\n");
    check(
      "7 recover session restore <backup> --store <copy> exits 0",
      rest.code === 0,
      `exit ${rest.code}${rest.code ? ": " + rest.stderr.trim().slice(0, 300) : ""}`,
    );
    const copyAfter = dumpRows(copyDb);
    const left = copyAfter.sessions.map((s) => s.row.id);
    check(
      "7 the copy's session table no longer holds the imported sessions",
      legacy.every((l) => !left.includes(l.id)),
      `left: ${left.join(", ")}`,
    );
    const orphans = legacy.map((l) => ({
      id: l.id,
      m: countRows(copyDb, "SELECT count(*) n FROM message WHERE session_id = ?", l.id),
      p: countRows(copyDb, "SELECT count(*) n FROM part WHERE session_id = ?", l.id),
    }));
    check(
      "7 their messages and parts are gone too",
      orphans.every((o) => o.m === 0 && o.p === 0),
      orphans.map((o) => `${o.id} ${o.m} messages / ${o.p} parts`).join(", "),
    );
    const nativeAfter = copyAfter.sessions.find((s) => s.row.id === nativeId);
    check("7 the 1.18.33 session is untouched (row, messages, parts equal)", isDeepStrictEqual(nativeBefore, nativeAfter), nativeAfter ? "" : "missing");
    const copyAll = dumpAll(copyDb);
    const differ = tablesChangedBesides(allBeforeImport, copyAll, []);
    check("7 the copy after the restore equals opencode.db before the import (every table, every row)", differ.length === 0, differ.join(", "));
    const realChanged = tablesChangedBesides(realBeforeRestore, dumpAll(dbFile), []);
    check("7 the real opencode.db was not touched by the restore on the copy", realChanged.length === 0, realChanged.join(", "));
  } catch (e) {
    check("run completed", false, e.message);
  } finally {
    server.close();
    const logDir = path.join(dataDir, "log");
    if (fs.existsSync(logDir)) fs.cpSync(logDir, path.join(out, "opencode-log"), { recursive: true });
    fs.writeFileSync(
      path.join(out, "summary.json"),
      JSON.stringify({ work, legacy: legacy.map(({ phase, id, title }) => ({ phase, id, title })), nativeId, backup: importDoc?.backup, checks }, null, 2) +
        "\n",
    );
  }

  const failed = checks.filter((c) => !c.ok);
  console.error("");
  console.error(`${checks.length - failed.length}/${checks.length} checks passed${failed.length ? "; FAILED:" : ""}`);
  for (const f of failed) console.error(`  FAIL ${f.id}${f.detail ? ": " + f.detail : ""}`);
  console.error(`artifacts in ${out}`);
  process.exit(failed.length ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(e.stack || String(e));
    process.exit(1);
  });
}
