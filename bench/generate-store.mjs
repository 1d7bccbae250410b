#!/usr/bin/env node
// Generates a large, deterministic opencode 1.18 SQLite store (V1 tables) for the scan benchmark.
//
//   node bench/generate-store.mjs [--sessions 2000] [--parts-target 300000] [--seed 1] [--name NAME] [--force]
//
// Writes bench/.data/<name>/opencode.db plus params.json (parameters, counts, planted defects).
// A store whose params.json matches the requested parameters is reused, not rebuilt.
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const SELF = fileURLToPath(import.meta.url);
export const DATA_DIR = join(dirname(SELF), ".data");
// A hash of this file: any change to the generator invalidates stores it made before.
const GENERATOR_VERSION = createHash("sha256").update(readFileSync(SELF)).digest("hex").slice(0, 12);
const DEFAULTS = { sessions: 2000, partsTarget: 300_000, seed: 1 };
// Defects planted on purpose; the bench checks the scan reports at least this many findings.
const PLANTED = { runningTool: 20, emptyText: 20, truncatedJson: 10 };
// Sessions are generated (and their rows inserted) this many at a time with overlapping clocks, so
// parts of different sessions interleave in the file the way concurrent opencode sessions do.
const CONCURRENT = 3;
// Time range of the generated history. It ends before the ID wrap of 2026-08-14T11:19:55Z (reference
// §1.3), so id order and time order agree everywhere: the wrap is an edge case for tests, not load.
const START_MS = Date.UTC(2026, 2, 1);
const END_MS = Date.UTC(2026, 7, 1);
// Parts per message, calibrated on this generator (clamps included). Used only to size the
// message-count distribution so that `sessions` sessions come close to `partsTarget` parts;
// if they fall short, extra sessions top up the rest.
const PARTS_PER_MESSAGE = 3.2;

// ---------------------------------------------------------------------------------------------
// Options (shared with scan-bench.mjs)

export const STORE_OPTIONS = {
  sessions: { type: "string" },
  "parts-target": { type: "string" },
  seed: { type: "string" },
  name: { type: "string" },
  force: { type: "boolean" },
  /** The most messages one session holds (default 399): the resume bench wants one session of ~10,000 parts. */
  "max-messages": { type: "string" },
};

/** Flags win over env (RECOVER_BENCH_SESSIONS / _PARTS / _SEED), env over defaults. */
export function storeOptions(values, env = process.env) {
  const num = (flag, envName, dflt) => {
    const raw = values[flag] ?? env[envName];
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a positive integer, got ${raw}`);
    return n;
  };
  const sessions = num("sessions", "RECOVER_BENCH_SESSIONS", DEFAULTS.sessions);
  const partsTarget = num("parts-target", "RECOVER_BENCH_PARTS", DEFAULTS.partsTarget);
  const seed = num("seed", "RECOVER_BENCH_SEED", DEFAULTS.seed);
  const maxMessages = values["max-messages"] !== undefined ? num("max-messages", "", 399) : undefined;
  const name = values.name ?? `s${sessions}-p${partsTarget}-seed${seed}${maxMessages ? `-m${maxMessages}` : ""}`;
  return { sessions, partsTarget, seed, name, force: Boolean(values.force), ...(maxMessages ? { maxMessages } : {}) };
}

/** Returns the store described by opts, generating it unless a matching one exists. */
export function ensureStore(opts, log = (msg) => process.stderr.write(msg + "\n")) {
  const dir = join(DATA_DIR, opts.name);
  const dbPath = join(dir, "opencode.db");
  const paramsPath = join(dir, "params.json");
  const wanted = {
    generatorVersion: GENERATOR_VERSION,
    sessions: opts.sessions,
    partsTarget: opts.partsTarget,
    seed: opts.seed,
    maxMessages: opts.maxMessages,
  };
  if (!opts.force && existsSync(paramsPath) && existsSync(dbPath)) {
    const params = JSON.parse(readFileSync(paramsPath, "utf8"));
    const same = Object.entries(wanted).every(([k, v]) => params[k] === v);
    if (same && statSync(dbPath).size === params.stats.dbBytes) {
      log(`reusing ${dbPath} (params.json matches)`);
      return { dir, dbPath, params, reused: true };
    }
  }
  mkdirSync(dir, { recursive: true });
  for (const f of ["opencode.db", "opencode.db-wal", "opencode.db-shm", "params.json", "opencode.db.partial"]) {
    rmSync(join(dir, f), { force: true });
  }
  log(`generating ${dbPath} (${opts.sessions} sessions, ≥${opts.partsTarget} parts, seed ${opts.seed})`);
  const t0 = performance.now();
  // Build under a temporary name so an interrupted run never leaves a db that looks complete.
  const partial = join(dir, "opencode.db.partial");
  const { stats, defects } = generate(partial, opts, log);
  renameSync(partial, dbPath);
  stats.genMs = Math.round(performance.now() - t0);
  stats.dbBytes = statSync(dbPath).size;
  const planted = {};
  for (const d of defects) planted[d.kind] = (planted[d.kind] ?? 0) + 1;
  const params = { ...wanted, stats, planted, plantedTotal: defects.length, defects };
  writeFileSync(paramsPath, JSON.stringify(params, null, 2) + "\n");
  log(
    `done in ${(stats.genMs / 1000).toFixed(1)} s: ${stats.sessions} sessions, ${stats.messages} messages, ` +
      `${stats.parts} parts, ${(stats.dbBytes / 2 ** 20).toFixed(0)} MiB, ${defects.length} planted defects`,
  );
  return { dir, dbPath, params, reused: false };
}

// ---------------------------------------------------------------------------------------------
// Schema: opencode 1.18.31 V1 tables (reference §3.2–3.3), drizzle-style DDL.

const SCHEMA = `
CREATE TABLE project (
  id text PRIMARY KEY NOT NULL, worktree text NOT NULL, vcs text, name text, icon_url text,
  icon_url_override text, icon_color text, time_created integer NOT NULL, time_updated integer NOT NULL,
  time_initialized integer, sandboxes text NOT NULL, commands text
);
CREATE TABLE session (
  id text PRIMARY KEY NOT NULL,
  project_id text NOT NULL REFERENCES project(id) ON DELETE cascade,
  workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL, path text,
  title text NOT NULL, version text NOT NULL, share_url text,
  summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
  metadata text,
  cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
  tokens_cache_write integer DEFAULT 0 NOT NULL,
  revert text, permission text, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer
);
CREATE TABLE message (
  id text PRIMARY KEY NOT NULL,
  session_id text NOT NULL REFERENCES session(id) ON DELETE cascade,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL
);
CREATE TABLE part (
  id text PRIMARY KEY NOT NULL,
  message_id text NOT NULL REFERENCES message(id) ON DELETE cascade,
  session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL
);`;

// Built after the bulk insert: same final file contents, much faster than maintaining them per row.
const INDEXES = `
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_workspace_idx ON session (workspace_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_message_idx ON part (message_id);
CREATE INDEX part_session_idx ON part (session_id);`;

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

export function makeRng(seed) {
  let a = seed >>> 0;
  const next = () => {
    // mulberry32: tiny, fast, good enough for synthetic data
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
    normal: () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next()),
    // Long-tailed sizes and durations: log-normal around `median`, clamped to [lo, hi].
    logNormal: (median, sigma, lo, hi) => Math.min(hi, Math.max(lo, Math.round(median * Math.exp(sigma * rng.normal())))),
    chars: (alphabet, n) => {
      let s = "";
      for (let i = 0; i < n; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      return s;
    },
  };
  return rng;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const HEX = "0123456789abcdef";
const TWO_48 = 2 ** 48;

/**
 * opencode's Identifier.create (reference §1.3): `<prefix>_` + 12 hex of the low 48 bits of
 * ms*0x1000 + counter (counter restarts each new ms), bitwise-inverted for descending ids, + 14 base62.
 * ms*0x1000 stays below 2^53 until the year 2248, so plain numbers are exact.
 */
export function makeIdMinter(rng) {
  let lastMs = -1;
  let counter = 0;
  return (prefix, ms, descending = false) => {
    if (ms !== lastMs) {
      lastMs = ms;
      counter = 0;
    }
    counter++;
    const n = (ms * 0x1000 + counter) % TWO_48;
    const v = descending ? TWO_48 - 1 - n : n; // low 48 bits of ~n
    return `${prefix}_${v.toString(16).padStart(12, "0")}${rng.chars(BASE62, 14)}`;
  };
}

// ---------------------------------------------------------------------------------------------
// Text corpora. Content is cut from ~1 MB corpora built once; slicing is far cheaper than
// generating hundreds of MB word by word, and the bytes still look like code, logs and prose.

const NOUNS = [
  "user",
  "session",
  "config",
  "cache",
  "token",
  "request",
  "handler",
  "router",
  "parser",
  "queue",
  "worker",
  "store",
  "message",
  "part",
  "event",
  "schema",
  "client",
  "server",
  "plugin",
  "logger",
  "retry",
  "budget",
  "stream",
  "buffer",
  "index",
  "record",
  "snapshot",
  "diff",
  "plan",
  "backup",
  "migration",
  "account",
];
const VERBS = [
  "get",
  "set",
  "load",
  "save",
  "parse",
  "build",
  "create",
  "update",
  "delete",
  "resolve",
  "validate",
  "render",
  "flush",
  "open",
  "close",
  "apply",
  "restore",
  "scan",
  "merge",
  "split",
  "normalize",
  "fetch",
];
const cap = (s) => s[0].toUpperCase() + s.slice(1);

function makeCorpora(rng) {
  const noun = () => rng.pick(NOUNS);
  const fn = () => rng.pick(VERBS) + cap(noun());
  const type = () => cap(noun()) + rng.pick(["", "Info", "Options", "State", "Result"]);
  const file = () => `src/${noun()}/${noun()}${rng.pick(["", "-utils", ".test", "-store"])}.ts`;
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
  const code = build(1 << 20, () => {
    const ind = "  ".repeat(rng.int(0, 3));
    switch (rng.int(0, 11)) {
      case 0:
        return `import { ${fn()}, ${type()} } from "../${noun()}/${noun()}.js"`;
      case 1:
        return `export async function ${fn()}(${noun()}: ${type()}, opts: ${type()} = {}): Promise<${type()}> {`;
      case 2:
        return `${ind}const ${noun()} = await ${fn()}(${noun()}, { ${noun()}: ${rng.int(0, 500)} })`;
      case 3:
        return `${ind}if (!${noun()}.${noun()}) throw new Error(\`${noun()} not found: \${${noun()}.id}\`)`;
      case 4:
        return `${ind}for (const ${noun()} of ${noun()}.${noun()}s) {`;
      case 5:
        return `${ind}${noun()}.${noun()} = ${fn()}(${noun()}, ${rng.int(1, 64)})`;
      case 6:
        return `${ind}}`;
      case 7:
        return `${ind}return ${noun()}`;
      case 8:
        return `${ind}// ${rng.pick(VERBS)} the ${noun()} before the ${noun()} is ${rng.pick(VERBS)}d`;
      case 9:
        return "";
      case 10:
        return `${ind}log.debug("${rng.pick(VERBS)} ${noun()}", { id: ${noun()}.id, count: ${rng.int(0, 99)} })`;
      default:
        return `${ind}${noun()}: z.${rng.pick(["string", "number", "boolean", "array(z.string())"])}().optional(),`;
    }
  });
  const log = build(1 << 20, () => {
    switch (rng.int(0, 9)) {
      case 0:
        return ` ✓ ${file()} (${rng.int(1, 40)} tests) ${rng.int(2, 900)}ms`;
      case 1:
        return ` × ${file()} > ${noun()} > ${rng.pick(VERBS)}s the ${noun()} ${rng.int(2, 900)}ms`;
      case 2:
        return `   → expected ${rng.int(0, 9)} to be ${rng.int(0, 9)} // Object.is equality`;
      case 3:
        return `${file()}(${rng.int(1, 400)},${rng.int(1, 60)}): error TS2345: Argument of type '${type()}' is not assignable to parameter of type '${type()}'.`;
      case 4:
        return `npm warn deprecated ${noun()}-${noun()}@${rng.int(0, 9)}.${rng.int(0, 20)}.${rng.int(0, 9)}: This package is no longer supported.`;
      case 5:
        return `[2026-0${rng.int(3, 7)}-1${rng.int(0, 9)}T1${rng.int(0, 9)}:${rng.int(10, 59)}:${rng.int(10, 59)}Z] INFO  ${rng.pick(VERBS)} ${noun()} id=${rng.chars(HEX, 8)} took ${rng.int(1, 4000)}ms`;
      case 6:
        return `    at ${fn()} (file:///home/dev/src/app/dist/${noun()}/${noun()}.js:${rng.int(1, 900)}:${rng.int(1, 80)})`;
      case 7:
        return ` ${rng.pick(["M", "A", "D", "??"])} ${file()}`;
      case 8:
        return `-rw-r--r--  1 dev dev ${String(rng.int(80, 90000)).padStart(6)} Jul ${rng.int(10, 28)} 1${rng.int(0, 9)}:${rng.int(10, 59)} ${noun()}.ts`;
      default:
        return ` Test Files  ${rng.int(0, 3)} failed | ${rng.int(10, 90)} passed (${rng.int(10, 93)})`;
    }
  });
  const prose = build(1 << 19, () => {
    const s = () => {
      switch (rng.int(0, 9)) {
        case 0:
          return `I'll look at how \`${fn()}\` handles an empty ${noun()} list.`;
        case 1:
          return `The failing test expects \`${noun()}.${noun()}\` to be set before \`${fn()}\` runs, but the ${noun()} is created lazily.`;
        case 2:
          return `Let me check \`${file()}\` to see where the ${noun()} is built.`;
        case 3:
          return `That explains the error: the ${noun()} is closed before the ${noun()} finishes.`;
        case 4:
          return `Next I'll update the ${noun()} handler and rerun the tests.`;
        case 5:
          return `All ${rng.int(2, 300)} tests pass now, and \`tsc --noEmit\` is clean.`;
        case 6:
          return `The user wants ${rng.pick(VERBS)} to work for ${noun()}s without a ${noun()}; that means ${fn()} must accept undefined.`;
        case 7:
          return `I should keep the change small: only \`${fn()}\` and its test need to move.`;
        case 8:
          return `- \`${file()}\`: ${rng.pick(VERBS)} the ${noun()} once instead of per ${noun()}`;
        default:
          return `Hmm, ${rng.int(2, 40)} call sites use \`${fn()}\`, so renaming it is riskier than adding an option.`;
      }
    };
    return Array.from({ length: rng.int(1, 5) }, s).join(" ") + "\n";
  });
  const signature = build(1 << 16, () => rng.chars(BASE62 + "+/", 76));
  return { code, log, prose, signature: signature.replaceAll("\n", ""), file, fn, noun, type };
}

/** `len` characters of `corpus` starting at a line boundary; repeats for lengths beyond the corpus. */
function excerpt(rng, corpus, len) {
  let out = "";
  while (out.length < len) {
    const start = corpus.indexOf("\n", rng.int(0, corpus.length - 1)) + 1;
    out += corpus.slice(start, start + (len - out.length));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Content of one session

const MODELS = [
  { id: "claude-sonnet-4-5", price: [3, 15, 0.3, 3.75], weight: 0.7 },
  { id: "claude-opus-4-1", price: [15, 75, 1.5, 18.75], weight: 0.2 },
  { id: "claude-haiku-4-5", price: [1, 5, 0.1, 1.25], weight: 0.1 },
];
const VERSIONS = ["1.18.24", "1.18.27", "1.18.29", "1.18.31"];
const ADJECTIVES = ["brave", "calm", "eager", "gentle", "happy", "jolly", "kind", "lucky", "proud", "quiet", "swift", "witty"];
const ANIMALS = ["otter", "falcon", "badger", "heron", "lynx", "panda", "koala", "moose", "raven", "tiger", "wombat", "yak"];
const PROJECTS = ["api-gateway", "billing", "web-app", "infra", "cli", "design-system", "data-pipeline", "mobile", "docs", "auth"];

function pickModel(rng) {
  let x = rng.next();
  for (const m of MODELS) {
    x -= m.weight;
    if (x < 0) return m;
  }
  return MODELS[0];
}

/** Turn plan: number of assistant steps per user turn; message count is long-tailed in 10..400. */
function planTurns(rng, medianMessages, maxMessages = 399) {
  const target = rng.logNormal(medianMessages, 0.9, 10, maxMessages); // a turn adds ≥2 messages: may end 1 over
  const turns = [];
  let messages = 0;
  while (messages < target) {
    let steps = 1;
    while (steps < 30 && rng.chance(0.68)) steps++; // tool loop: each step is one assistant message
    steps = Math.max(1, Math.min(steps, target - messages - 1)); // stay within 10..400 messages
    turns.push(steps);
    messages += 1 + steps;
  }
  return turns;
}

/** The turn a `runningTool` defect cuts short: the first turn with a tool step that is not the last turn. */
const runningToolTurn = (turns) => turns.findIndex((steps, i) => steps >= 2 && i < turns.length - 1);

/** Whether a defect of `kind` can be planted in a session with this turn plan (never in its last message). */
function canPlant(kind, turns) {
  if (kind === "emptyText") return true; // the first assistant message is never the last message
  if (kind === "truncatedJson") return turns.some((steps) => steps >= 2); // only non-final steps call tools
  // runningTool drops the rest of the cut turn; the session must still have ≥10 messages.
  const cut = runningToolTurn(turns);
  const messages = turns.reduce((n, steps) => n + 1 + steps, 0);
  return cut >= 0 && messages - (turns[cut] - 1) >= 10;
}

function makeSessionGenerator(rng, mint, corpora) {
  const { code, log, prose, signature, file, noun, fn } = corpora;
  const randomSlice = (s, n) => {
    const o = rng.int(0, s.length - n);
    return s.slice(o, o + n);
  };

  function toolCall(project, t) {
    const tool = rng.pick(["read", "read", "read", "bash", "bash", "bash", "edit", "edit", "grep", "grep"]);
    const abs = (rel) => `${project.worktree}/${rel}`;
    const duration = rng.logNormal(tool === "bash" ? 2500 : 40, 1.6, 5, 600_000);
    const time = { start: t, end: t + duration };
    if (tool === "read") {
      const rel = file();
      const lines = excerpt(rng, code, rng.logNormal(2500, 1.0, 40, 250_000)).split("\n");
      const body = lines.map((l, i) => `${String(i + 1).padStart(5, "0")}| ${l}`).join("\n");
      return {
        tool,
        time,
        input: { filePath: abs(rel) },
        title: rel,
        output: `<file>\n${body}\n\n(End of file - total ${lines.length} lines)\n</file>`,
        metadata: { preview: lines.slice(0, 20).join("\n"), truncated: false },
      };
    }
    if (tool === "bash") {
      const [command, description] = rng.pick([
        [`npm test -- --run ${file()}`, "Run tests"],
        ["npx tsc --noEmit", "Type-check"],
        ["git status --short", "Show status"],
        ["git diff --stat", "Show diff"],
        [`ls -la src/${noun()}`, "List files"],
        ["npm run build", "Build"],
        [`git log --oneline -n ${rng.int(5, 50)}`, "Recent commits"],
        [`rg -n "${fn()}" src`, "Find usages"],
      ]);
      const output = excerpt(rng, log, rng.logNormal(400, 2.3, 0, 2_000_000));
      return {
        tool,
        time,
        input: { command, description },
        title: description,
        output,
        metadata: { output: output.slice(0, 30_000), exit: rng.chance(0.8) ? 0 : 1, description },
      };
    }
    if (tool === "edit") {
      const rel = file();
      const oldString = excerpt(rng, code, rng.logNormal(200, 0.8, 20, 4000));
      const newString = oldString + excerpt(rng, code, rng.logNormal(120, 0.8, 10, 3000));
      const before = excerpt(rng, code, rng.logNormal(2500, 1.0, 200, 200_000));
      const after = before + newString;
      const deletions = oldString.split("\n").length;
      const additions = newString.split("\n").length;
      const diff =
        `Index: ${abs(rel)}\n===================================================================\n--- ${abs(rel)}\n+++ ${abs(rel)}\n` +
        `@@ -1,${deletions} +1,${additions} @@\n` +
        oldString.replace(/^/gm, "-") +
        "\n" +
        newString.replace(/^/gm, "+") +
        "\n";
      return {
        tool,
        time,
        input: { filePath: abs(rel), oldString, newString },
        title: rel,
        output: "Edit applied successfully.",
        metadata: { diagnostics: {}, diff, filediff: { file: abs(rel), before, after, additions, deletions } },
        additions,
        deletions,
      };
    }
    const pattern = fn();
    const matches = rng.logNormal(6, 1.2, 0, 100);
    let output = matches ? `Found ${matches} matches\n` : "No files found";
    for (let i = 0; i < matches; i++) {
      if (i % 4 === 0) output += `${i ? "\n" : ""}${abs(file())}:\n`;
      output += `  Line ${rng.int(1, 900)}: ${excerpt(rng, code, rng.int(20, 120)).split("\n")[0]}\n`;
    }
    return { tool, time, input: rng.chance(0.5) ? { pattern } : { pattern, include: "*.ts" }, title: pattern, output, metadata: { matches, truncated: false } };
  }

  /**
   * Returns the session row and its message/part rows, each with the time opencode would have
   * inserted it. `defect` (optional) plants one known corruption; its ids are returned.
   */
  return function session(project, startMs, turns, defect) {
    const model = pickModel(rng);
    const agent = rng.chance(0.9) ? "build" : "plan";
    const sessionID = mint("ses", startMs, true);
    const rows = []; // { t, table, values }
    const totals = { cost: 0, input: 0, output: 0, reasoning: 0, read: 0, write: 0, additions: 0, deletions: 0, files: new Set() };
    let planted = null;
    let t = startMs + rng.int(100, 3000); // the first prompt is sent a moment after the session is created
    let context = rng.int(9000, 16000); // system prompt + tool schemas, in tokens
    const addPart = (messageID, start, end, data) => {
      const id = mint("prt", start);
      rows.push({ t: start, table: "part", values: [id, messageID, sessionID, start, end, JSON.stringify(data)] });
      return id;
    };
    const cutTurn = defect === "runningTool" ? runningToolTurn(turns) : -1;

    for (let turn = 0; turn < turns.length; turn++) {
      if (turn > 0) t += rng.logNormal(60_000, 1.5, 2_000, 4 * 3_600_000); // the user reads and types
      const userID = mint("msg", t);
      rows.push({
        t,
        table: "message",
        values: [userID, sessionID, t, t, JSON.stringify({ role: "user", time: { created: t }, agent, model: { providerID: "anthropic", modelID: model.id } })],
      });
      const prompt =
        excerpt(rng, prose, rng.logNormal(160, 1.0, 12, 4000)).trim() +
        (rng.chance(0.1) ? "\n\n```\n" + excerpt(rng, log, rng.logNormal(1500, 1.3, 100, 60_000)) + "```\n" : "");
      addPart(userID, t, t, { type: "text", text: prompt });
      context += prompt.length / 4;

      for (let step = 0; step < turns[turn]; step++) {
        const last = step === turns[turn] - 1;
        const killed = turn === cutTurn && step === 0; // process killed while a tool ran; user continued later
        t += rng.logNormal(900, 0.7, 150, 20_000);
        const created = t;
        const messageID = mint("msg", t);
        const messageRow = { t, table: "message", values: [messageID, sessionID, t, t, null] };
        rows.push(messageRow);
        let written = 0;
        addPart(messageID, t, t, { type: "step-start", snapshot: rng.chars(HEX, 40) });
        // opencode 1.18 sends a "" text part only in a message with signed reasoning (as " ", which the API rejects);
        // elsewhere it drops it. So the planted empty text always comes after signed reasoning: it is a real defect.
        const plantsEmptyText = defect === "emptyText" && turn === 0 && step === 0;
        if (rng.chance(0.6) || plantsEmptyText) {
          const text = excerpt(rng, prose, rng.logNormal(500, 1.0, 20, 12_000)).trim();
          const start = t;
          t += rng.logNormal(2500, 0.8, 100, 120_000);
          addPart(messageID, start, t, {
            type: "reasoning",
            text,
            metadata: { anthropic: { signature: randomSlice(signature, rng.logNormal(600, 0.5, 200, 4000)) } },
            time: { start, end: t },
          });
          written += text.length;
        }
        if (plantsEmptyText) {
          planted = { kind: defect, sessionID, messageID, partID: addPart(messageID, t, t, { type: "text", text: "", time: { start: t, end: t } }) };
        } else if (last || rng.chance(0.45)) {
          const text = excerpt(rng, prose, rng.logNormal(last ? 700 : 200, 0.9, 10, 16_000)).trim();
          const start = t;
          t += rng.logNormal(1500, 0.8, 50, 60_000);
          addPart(messageID, start, t, { type: "text", text, time: { start, end: t } });
          written += text.length;
        }
        let toolOutput = 0;
        const tools = last ? 0 : rng.logNormal(1, 0.6, 1, 6);
        for (let i = 0; i < tools; i++) {
          t += rng.int(5, 400);
          const call = toolCall(project, t);
          const callID = "toolu_01" + rng.chars(BASE62, 22);
          if (killed) {
            const partID = addPart(messageID, t, t, {
              type: "tool",
              callID,
              tool: call.tool,
              state: { status: "running", input: call.input, title: call.title, metadata: {}, time: { start: t } },
            });
            planted = { kind: defect, sessionID, messageID, partID };
            break;
          }
          const data = {
            type: "tool",
            callID,
            tool: call.tool,
            state: { status: "completed", input: call.input, output: call.output, title: call.title, metadata: call.metadata, time: call.time },
          };
          const partID = addPart(messageID, t, call.time.end, data);
          if (defect === "truncatedJson" && !planted) {
            const row = rows.at(-1).values;
            row[5] = row[5].slice(0, Math.floor(row[5].length * 0.6)); // a write torn mid-record
            planted = { kind: defect, sessionID, messageID, partID };
          }
          t = call.time.end;
          toolOutput += call.output.length;
          written += JSON.stringify(call.input).length;
          if (call.tool === "edit") {
            totals.additions += call.additions;
            totals.deletions += call.deletions;
            totals.files.add(call.input.filePath);
          }
        }
        const data = {
          role: "assistant",
          parentID: userID,
          modelID: model.id,
          providerID: "anthropic",
          mode: agent,
          agent,
          path: { cwd: project.worktree, root: project.worktree },
          cost: 0,
          tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
          time: { created },
        };
        if (killed) {
          // no step-finish, no time.completed, no finish: the rest of the turn never happened
          messageRow.values[4] = JSON.stringify(data);
          break;
        }
        const output = Math.round(written / 4) + rng.int(5, 60);
        const tokens = {
          total: 0,
          input: rng.int(2, 40),
          output,
          reasoning: Math.round(output * rng.next() * 0.5),
          cache: { read: Math.round(context), write: rng.int(50, 3000) },
        };
        tokens.total = tokens.input + tokens.output + tokens.cache.read + tokens.cache.write;
        const [pIn, pOut, pRead, pWrite] = model.price;
        const cost = (tokens.input * pIn + tokens.output * pOut + tokens.cache.read * pRead + tokens.cache.write * pWrite) / 1e6;
        // Context grows with each step and is pruned/compacted near the window limit.
        context = Math.min(150_000, context + output + toolOutput / 4 + tokens.cache.write);
        t += rng.int(5, 80);
        const finish = last ? "stop" : "tool-calls";
        addPart(messageID, t, t, { type: "step-finish", reason: finish, snapshot: rng.chars(HEX, 40), cost, tokens });
        Object.assign(data, { cost, tokens, time: { created, completed: t }, finish });
        messageRow.values[3] = t;
        messageRow.values[4] = JSON.stringify(data);
        totals.cost += cost;
        totals.input += tokens.input;
        totals.output += tokens.output;
        totals.reasoning += tokens.reasoning;
        totals.read += tokens.cache.read;
        totals.write += tokens.cache.write;
      }
    }

    const title = `${cap(rng.pick(VERBS))} ${noun()} ${rng.pick(["handling", "tests", "retry logic", "schema", "for empty input", "performance"])}`;
    const sessionRow = [
      sessionID,
      project.id,
      null,
      null,
      `${rng.pick(ADJECTIVES)}-${rng.pick(ANIMALS)}`,
      project.worktree,
      "",
      title,
      rng.pick(VERSIONS),
      null,
      totals.additions,
      totals.deletions,
      totals.files.size,
      null,
      null,
      totals.cost,
      totals.input,
      totals.output,
      totals.reasoning,
      totals.read,
      totals.write,
      null,
      null,
      agent,
      JSON.stringify({ id: model.id, providerID: "anthropic" }),
      startMs,
      t,
      null,
      null,
    ];
    return { sessionRow, rows, planted, endMs: t };
  };
}

// ---------------------------------------------------------------------------------------------

function generate(dbPath, opts, log) {
  const rng = makeRng(opts.seed);
  const mint = makeIdMinter(rng);
  const corpora = makeCorpora(rng);
  const session = makeSessionGenerator(rng, mint, corpora);

  const db = new Database(dbPath);
  // Bulk-load settings: nothing else reads this file until it is renamed into place.
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.pragma("locking_mode = EXCLUSIVE");
  db.pragma("cache_size = -131072");
  db.pragma("foreign_keys = ON"); // as opencode runs; catches generator bugs that break references
  db.exec(SCHEMA);
  const insert = {
    project: db.prepare("INSERT INTO project VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"),
    session: db.prepare(`INSERT INTO session VALUES (${Array(29).fill("?").join(",")})`),
    message: db.prepare("INSERT INTO message VALUES (?,?,?,?,?)"),
    part: db.prepare("INSERT INTO part VALUES (?,?,?,?,?,?)"),
  };

  const projects = PROJECTS.map((name) => ({ id: rng.chars(HEX, 40), worktree: `/home/dev/src/${name}`, name }));
  const medianMessages = opts.partsTarget / opts.sessions / PARTS_PER_MESSAGE / Math.exp(0.9 ** 2 / 2);
  const groups = Math.ceil(opts.sessions / CONCURRENT);
  const spacing = (END_MS - START_MS) / groups;

  // Defects are spread evenly over the store, kinds interleaved, one per session at most.
  const queue = [];
  for (let left = { ...PLANTED }; Object.values(left).some((n) => n > 0); ) {
    for (const kind of Object.keys(left)) if (left[kind]-- > 0) queue.push(kind);
  }
  const stride = Math.max(1, Math.floor(opts.sessions / queue.length));
  let pending = null;
  const defects = [];
  const stats = { projects: projects.length, sessions: 0, messages: 0, parts: 0 };

  db.transaction(() => {
    for (const p of projects) {
      insert.project.run(p.id, p.worktree, "git", p.name, null, null, null, START_MS, START_MS, START_MS, "[]", null);
    }
    for (let g = 0; stats.sessions < opts.sessions || stats.parts < opts.partsTarget; g++) {
      const groupStart = Math.round(START_MS + (g % groups) * spacing);
      const batch = [];
      const size = stats.sessions < opts.sessions ? Math.min(CONCURRENT, opts.sessions - stats.sessions) : CONCURRENT;
      for (let k = 0; k < size; k++) {
        const index = stats.sessions + k;
        if (index % stride === Math.floor(stride / 2) && queue.length && !pending) pending = queue.shift();
        const turns = planTurns(rng, medianMessages, opts.maxMessages);
        const defect = pending && canPlant(pending, turns) ? pending : undefined;
        const s = session(rng.pick(projects), groupStart + rng.int(0, 20 * 60_000), turns, defect);
        if (defect) {
          defects.push(s.planted);
          pending = null;
        }
        batch.push(s);
      }
      // Insert the group's rows in time order, as concurrent sessions would have written them.
      for (const s of batch) insert.session.run(s.sessionRow);
      const rows = batch.flatMap((s) => s.rows).sort((a, b) => a.t - b.t);
      for (const r of rows) insert[r.table].run(r.values);
      stats.sessions += batch.length;
      stats.messages += rows.filter((r) => r.table === "message").length;
      stats.parts += rows.length - rows.filter((r) => r.table === "message").length;
      if (g % 100 === 99) log(`  ${stats.sessions} sessions, ${stats.parts} parts`);
    }
    db.exec(INDEXES);
  })();
  // opencode runs the database in WAL mode; the mode is recorded in the file header.
  db.pragma("locking_mode = NORMAL");
  db.pragma("journal_mode = WAL");
  db.close();
  return { stats, defects };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({ options: STORE_OPTIONS });
  const { dbPath, params, reused } = ensureStore(storeOptions(values));
  const { defects, ...summary } = params;
  process.stdout.write(JSON.stringify({ dbPath, reused, ...summary }, null, 2) + "\n");
}
