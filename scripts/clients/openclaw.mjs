// The openclaw driver: `openclaw agent --local --agent main --message … --json [--thinking L]` (the embedded,
// gateway-less agent turn) offline against the loopback Messages API mock (api/messages.mjs). Every run continues the
// agent's main session (key agent:main:main): the first step makes it, every later one resumes it.
//
// Where the session is: openclaw up to 2026.7 writes the transcript as pi JSONL, <state>/agents/main/sessions/<id>.jsonl
// (sessions.json maps the key to it), which is what recover reads and writes. 2026.8 moved live sessions into SQLite,
// <state>/agents/main/agent/openclaw-agent.sqlite (transcript_events: one row per event of the same JSON line format,
// header now `version: 4`); the JSONL files are "legacy migration inputs" the runtime no longer reads. The driver reads
// and edits whichever the client wrote: the SQLite store through openclaw-sqlite.mjs, run by the client's Node 24 (the
// SQLite damage scenarios plant theirs with its damage ops: damageSqlite; docs/research/openclaw-sqlite-damage.md).
//
// Isolation: HOME, OPENCLAW_STATE_DIR and OPENCLAW_CONFIG_PATH under <work>/home, cwd and agent workspace
// <work>/workspace (a fixed work dir: its paths are in the transcript header and the system prompt); the config points
// provider `anthropic` at the mock with a fake key; no gateway daemon (--local holds the state lock itself).
// Install: `openclaw@<v>` with Node 24 first on PATH (engines: node >= 24.16 for 2026.9, >= 22.22.3 for 2026.7); npm
// 11 skips its install scripts (allowScripts), and the client runs fine without them.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { editLines, filesImage, sandboxDirs, trimMessagesRequest } from "./lib/files.mjs";

const SESSION_KEY = "agent:main:main";
const SQLITE_HELPER = path.join(path.dirname(fileURLToPath(import.meta.url)), "openclaw-sqlite.mjs");

/** The openclaw.json of a run: provider `anthropic` at the mock; `reasoningModel: false` leaves the model entry out. */
export function openclawConfig(url, model, workspace, { reasoningModel = true } = {}) {
  // Without an explicit model entry the overridden provider resolves the model with reasoning:false and max_tokens
  // 4096: --thinking is then recorded but never sent, and every stored thinking block is dropped from the request.
  const models = [
    {
      id: model,
      name: model,
      reasoning: true,
      input: ["text", "image"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 200000,
      maxTokens: 16000,
    },
  ];
  return {
    models: { providers: { anthropic: { baseUrl: url, api: "anthropic-messages", apiKey: "sk-ant-mock-0000", ...(reasoningModel ? { models } : {}) } } },
    agents: { defaults: { workspace, model: { primary: `anthropic/${model}` } } },
  };
}

const where = (ctx) => {
  const agent = path.join(ctx.sandbox.stateDir, "agents", "main");
  return { db: path.join(agent, "agent", "openclaw-agent.sqlite"), sessions: path.join(agent, "sessions") };
};

// OPENCLAW_DIR: the helper's `zstd` stores a row through the client's own code.
function sqlite(ctx, args, input) {
  const env = { ...process.env, OPENCLAW_DIR: ctx.installed.dir };
  const r = spawnSync(ctx.installed.node, [SQLITE_HELPER, ...args], { input, encoding: "utf8", env });
  if (r.status !== 0) throw new Error(`openclaw-sqlite.mjs ${args[0]} exited ${r.status ?? r.signal}: ${r.stderr.trim()}`);
  return r.stdout;
}

/**
 * The main session as the client stored it: { id, kind: "sqlite" | "jsonl", file?, events: [{ seq, json }] } (the
 * event JSON texts in order, exactly as stored), or null before there is one.
 */
export function readSession(ctx) {
  const { db, sessions } = where(ctx);
  if (fs.existsSync(db)) {
    const { sessionId, events } = JSON.parse(sqlite(ctx, ["read", db, SESSION_KEY]));
    if (sessionId) return { id: sessionId, kind: "sqlite", events };
  }
  const index = path.join(sessions, "sessions.json");
  const entry = fs.existsSync(index) ? JSON.parse(fs.readFileSync(index, "utf8"))[SESSION_KEY] : null;
  if (!entry?.sessionId) return null;
  const file = entry.sessionFile ?? path.join(sessions, `${entry.sessionId}.jsonl`);
  if (!fs.existsSync(file)) return null;
  const raw = fs.readFileSync(file, "utf8");
  const lines = (raw.endsWith("\n") ? raw.slice(0, -1) : raw).split("\n");
  return { id: entry.sessionId, kind: "jsonl", file, events: lines.map((json, seq) => ({ seq, json })) };
}

/**
 * Edit the stored events in place, with no client running: `fn(event)` (parsed) returns true when it changed it. A
 * changed event is written back re-serialized (a JSONL line in place, an SQLite row as plain event_json); every other
 * event keeps its bytes. Returns how many changed.
 */
export function editEvents(ctx, fn) {
  const s = readSession(ctx);
  const changed = [];
  for (const e of s.events) {
    const ev = JSON.parse(e.json);
    if (fn(ev)) changed.push({ seq: e.seq, json: JSON.stringify(ev) });
  }
  if (s.kind === "sqlite") sqlite(ctx, ["write", where(ctx).db, s.id], JSON.stringify(changed));
  else
    editLines(s.file, (lines) => {
      for (const c of changed) lines[c.seq] = c.json;
      return { lines };
    });
  return changed.length;
}

/**
 * Damage the SQLite store as a scenario's edit, with no client running: `op` one of openclaw-sqlite.mjs's damage ops
 * (tear, zstd, corrupt-zstd, drop-window, dangle), `args` after the database. Returns the helper's note.
 */
export function damageSqlite(ctx, op, ...args) {
  return sqlite(ctx, [op, where(ctx).db, ...args.map(String)]).trim();
}

/** The main session's SQLite events, parsed where they parse: [{ seq, json, event? }] (for picking a row to damage). */
export function sqliteEvents(ctx) {
  const s = readSession(ctx);
  if (s?.kind !== "sqlite") throw new Error("the main session is not in the SQLite store");
  return s.events.map((e) => {
    try {
      return { ...e, event: JSON.parse(e.json) };
    } catch {
      return e;
    }
  });
}

/** The legacy JSONL folder and the SQLite database of the run's main agent (for a scenario's edit and checks). */
export const storePaths = (ctx) => where(ctx);

// A row that no longer decodes is kept as a line saying so (the transcript files are for reading, not for restoring).
const transcriptText = (s) => `${s.events.map((e) => e.json ?? `[seq ${e.seq} does not decode: ${e.error}]`).join("\n")}\n`;

export const driver = {
  // Which versions, the package, the Node it needs and the API: the client's line in index.mjs.
  launch: (dir) => ({ command: path.join(dir, "node_modules", ".bin", "openclaw"), prefixArgs: [] }),
  /** Where a version's fixtures live (null: none kept for it). */
  fixtures: (version) => (version === "2026.9.6" ? "fixtures/openclaw-2026.9" : null),
  defaultModel: "claude-sonnet-4-5",
  defaultWork: "/tmp/ocl-capture",
  // One agent turn takes 10–70 s on a busy 2-core machine (2026.9 loads ~60 tools and its plugins on every run).
  timeout: 300,
  sandbox(ctx) {
    const { home, config: stateDir, cwd } = sandboxDirs(ctx.work, ".openclaw", "workspace");
    for (const [f, c] of Object.entries(ctx.scenario.workspace ?? {})) fs.writeFileSync(path.join(cwd, f), c);
    const configPath = path.join(stateDir, "openclaw.json");
    const config = openclawConfig(ctx.mock.url, ctx.model, cwd, { reasoningModel: ctx.scenario.reasoningModel !== false });
    fs.writeFileSync(configPath, `${JSON.stringify(config, null, 2)}\n`);
    const env = {
      PATH: ctx.installed.PATH,
      HOME: home,
      USER: process.env.USER ?? "root",
      LANG: "C.UTF-8",
      TZ: "UTC",
      OPENCLAW_STATE_DIR: stateDir,
      OPENCLAW_CONFIG_PATH: configPath,
      ANTHROPIC_API_KEY: "sk-ant-mock-0000",
      NO_COLOR: "1",
    };
    return { env, cwd, home, stateDir, store: stateDir, recoverEnv: { HOME: home, OPENCLAW_STATE_DIR: stateDir } };
  },
  // The client's own turn timeout; the engine kills the process group at driver.timeout. A step with `argv` runs
  // that command of the client instead of an agent turn (e.g. ["doctor", "--fix", "--non-interactive"]).
  args: (step, ctx) =>
    step.argv ?? [
      "agent",
      "--local",
      "--agent",
      "main",
      "--message",
      step.prompt,
      "--json",
      "--timeout",
      "240",
      ...(step.thinking ? ["--thinking", step.thinking] : []),
      ...((typeof step.args === "function" ? step.args(ctx) : step.args) ?? []),
    ],
  locate(ctx) {
    const s = readSession(ctx);
    return s ? { id: s.id, kind: s.kind, file: s.file } : null;
  },
  // What recover may change and restore must give back: the JSONL transcripts, and every row of the SQLite tables
  // that hold session data (openclaw-sqlite.mjs dump), so a restore is checked row for row.
  snapshot(ctx) {
    const { db, sessions } = where(ctx);
    const sqliteRows = ctx.session?.kind === "sqlite" || fs.existsSync(db) ? JSON.parse(sqlite(ctx, ["dump", db])) : null;
    return { sessions: filesImage(sessions), ...(sqliteRows ? { sqlite: sqliteRows } : {}) };
  },
  // The transcript around every step; for a scenario with SQLite fixtures also the database itself, as one file.
  keep(ctx, label) {
    fs.writeFileSync(path.join(ctx.out, `transcript-${label}.jsonl`), transcriptText(readSession(ctx) ?? { events: [] }));
    const { db, sessions } = where(ctx);
    if (ctx.scenario.fixture !== "sqlite") return;
    if (fs.existsSync(db)) sqlite(ctx, ["vacuum", db, path.join(ctx.out, `db-${label}.sqlite`)]);
    if (fs.existsSync(sessions)) fs.cpSync(sessions, path.join(ctx.out, `sessions-${label}`), { recursive: true });
  },
  writeFixtures,
};

// The cut marker names the script the committed fixtures were first captured with, so a rerun changes only what the
// client changes.
const BY = "capture-openclaw-request.mjs";

/**
 * The scenario's fixtures (fixtures/openclaw-2026.9/README.md): <name>.jsonl, the transcript the captured step found
 * (edits included), and <name>.request.json, that step's first /v1/messages request, trimmed. None for a scenario with
 * `fixture: false`; a `fixture: "sqlite"` scenario keeps its store instead (writeSqliteFixtures).
 */
function writeFixtures(ctx, dir, { verdict, requests }) {
  if (ctx.scenario.fixture === false) return;
  // The SQLite stores have their own folder beside the request captures' (the suite's --update-fixtures names the
  // version's one folder): fixtures/openclaw-2026.9 -> fixtures/openclaw-2026.9-sqlite.
  if (ctx.scenario.fixture === "sqlite") {
    const base = path.resolve(dir);
    return writeSqliteFixtures(ctx, base.endsWith("-sqlite") ? base : `${base}-sqlite`, verdict);
  }
  const n = verdict.captureStep;
  const captured = requests.find((r) => r.tag === n && r.main);
  if (!captured) throw new Error(`no /v1/messages request in step ${n}; see ${ctx.out}/step-${n}.stderr`);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(ctx.out, `transcript-before-step-${n}.jsonl`), path.join(dir, `${ctx.name}.jsonl`));
  fs.writeFileSync(path.join(dir, `${ctx.name}.request.json`), `${JSON.stringify(trimMessagesRequest(captured.body, BY), null, 2)}\n`);
}

/**
 * A `fixture: "sqlite"` scenario's fixtures (fixtures/openclaw-2026.9-sqlite/README.md): <name>.sqlite.gz, the
 * database after the captured step (the damage, and whatever the client wrote over it: the store a repair loop's
 * recover step finds), VACUUMed INTO one file (no -wal) and gzipped; and when the agent has a legacy sessions/ folder,
 * <name>.sessions/, its transcripts and sessions.json as they were then (or before step `legacySessionsStep`).
 */
function writeSqliteFixtures(ctx, dir, verdict) {
  const n = verdict.captureStep;
  const kept = path.join(ctx.out, `db-after-step-${n}.sqlite`);
  if (!fs.existsSync(kept)) throw new Error(`no database kept after step ${n} (${kept})`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${ctx.name}.sqlite.gz`), zlib.gzipSync(fs.readFileSync(kept), { level: 9 }));
  // The transcripts and their index only (a 2026.7 trajectory sidecar is ~400 KB of trace events recover never reads).
  const from = ctx.scenario.legacySessionsStep ? `before-step-${ctx.scenario.legacySessionsStep}` : `after-step-${n}`;
  const sessions = path.join(ctx.out, `sessions-${from}`);
  const to = path.join(dir, `${ctx.name}.sessions`);
  fs.rmSync(to, { recursive: true, force: true });
  const keep = fs.existsSync(sessions)
    ? fs.readdirSync(sessions).filter((f) => f === "sessions.json" || (f.endsWith(".jsonl") && !f.includes(".trajectory.")))
    : [];
  if (keep.length) fs.mkdirSync(to, { recursive: true });
  for (const f of keep) fs.copyFileSync(path.join(sessions, f), path.join(to, f));
}
