// The opencode driver: `opencode run` (a new session, or `--session <id>` to continue one) offline against the
// loopback Messages API mock (api/messages.mjs). The store depends on the version: 1.1.x keeps a session as a JSON
// tree, $XDG_DATA_HOME/opencode/storage/ (session/<project>/<ses>.json, message/<ses>/<msg>.json,
// part/<msg>/<prt>.json, each `JSON.stringify(x, null, 2)`); 1.2 and later one SQLite file,
// $XDG_DATA_HOME/opencode/opencode.db (tables session, message, part: `data` is the JSON without the ids that became
// columns). Scenario edits go through editSession(), one interface over both.
//
// Isolation: HOME and XDG_{DATA,CONFIG,STATE,CACHE}_HOME under the work dir, cwd <work>/project: a git repo with one
// commit of fixed author and date, so the project id (its root commit) is the same on every run. The work dir is
// stored in sessions and in the system prompt, so each version keeps the one its fixtures were captured in.
// Config $XDG_CONFIG_HOME/opencode/opencode.json: the model, provider.anthropic.options.baseURL = the mock, autoupdate
// false, share disabled. Env: ANTHROPIC_API_KEY=sk-ant-test, OPENCODE_DISABLE_MODELS_FETCH=1 (the models.dev snapshot
// compiled into the binary; without it the client fetches models.dev), OPENCODE_DISABLE_AUTOUPDATE, _SHARE,
// _LSP_DOWNLOAD. 1.2+: OPENCODE_DISABLE_CHANNEL_DB (always opencode.db), and on `run` `--pure` (no external plugins),
// `--auto` (approve tool permissions), `--title "mock session"` (no title request). 1.1.x has no --pure and no --auto:
// OPENCODE_DISABLE_DEFAULT_PLUGINS=1 instead (else it installs opencode-anthropic-auth from npm) and permission
// bash/edit "allow" in the config; no --title, so it asks for a title as a user's client would.
// `opencode run` joins its positional words with " " and wraps a word holding a space in double quotes (a prompt
// passed as one argument is stored as "\"Say hello.\""), so the prompt goes in word by word.
// Install: `opencode-ai@<v>`; npm links node_modules/.bin/opencode to the native binary of the optional dependency
// opencode-linux-x64 (its postinstall only picks that binary, not needed on linux-x64).
//
// Scenario fields the driver reads: project ({ file: content } in the project before the commit), variant (`--variant`),
// config (more top-level config keys), dropBlock: false (the model option thinking.blockBinding false: the API's
// default instead of opencode's `drop_block` for Claude >= 5.1), fixture ("request" | "repair" | "tree": what
// writeFixtures keeps). Step fields: args (more `run` arguments, e.g. -f), argv (another command than `run`, e.g.
// `session list`), title (false: no --title).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import Database from "better-sqlite3";
import { ROOT } from "./lib/engine.mjs";
import { filesImage, listFiles } from "./lib/files.mjs";

/** 1.1.x and older: the JSON tree, and no --pure / --auto. */
export const isLegacy = (version) => {
  const [major, minor] = version.split(".").map(Number);
  return major < 1 || (major === 1 && minor < 2);
};

export const driver = {
  // Which versions, the package and the API: the client's line in index.mjs.
  launch: (dir) => ({ command: path.join(dir, "node_modules", ".bin", "opencode"), prefixArgs: [] }),
  /** Where a version's fixtures live: the JSON tree of the 1.1.65 capture, the SQLite scenarios of 1.18 (null: none). */
  fixtures: (version, name) =>
    isLegacy(version)
      ? name === "three-sessions"
        ? "fixtures/opencode-1.1.65"
        : null
      : fs.existsSync(path.join(ROOT, "fixtures", "opencode-1.18", name))
        ? "fixtures/opencode-1.18"
        : null,
  defaultModel: "anthropic/claude-sonnet-4-5",
  defaultWork: (version) => (isLegacy(version) ? "/tmp/oc-legacy-capture" : "/tmp/oc-capture"),
  sandbox,
  args(step, ctx) {
    if (step.argv) return step.argv;
    const legacy = isLegacy(step.version ?? ctx.version);
    const title = step.title ?? (legacy ? false : "mock session");
    const variant = ctx.scenario.variant;
    return [
      "run",
      ...(legacy ? [] : ["--pure"]),
      ...["--format", "json", "--model", ctx.model],
      ...(legacy ? [] : ["--auto"]),
      ...(title ? ["--title", title] : []),
      ...(variant ? ["--variant", variant] : []),
      ...(step.resume ? ["--session", ctx.session.id] : []),
      ...(step.args ?? []),
      "--",
      ...step.prompt.split(" "),
    ];
  },
  /** The session the first step wrote: the oldest in opencode.db, else in the JSON tree. */
  locate(ctx) {
    if (ctx.session) return ctx.session;
    const { db, storage } = ctx.sandbox;
    const id = fs.existsSync(db) ? withDb(db, (d) => d.prepare("SELECT id FROM session ORDER BY time_created, id").get()?.id) : null;
    if (id) return { id, db: true };
    const tree = treeSessions(storage).sort((a, b) => a.time.created - b.time.created)[0];
    return tree ? { id: tree.id, db: false } : null;
  },
  /** Every row of every table of opencode.db, and the bytes of every file of the JSON tree: whichever there is. */
  snapshot(ctx) {
    const { db, storage } = ctx.sandbox;
    return { ...(fs.existsSync(db) ? { rows: tableRows(db) } : {}), ...(fs.existsSync(storage) ? { files: filesImage(storage) } : {}) };
  },
  keep(ctx, label) {
    const { db, storage } = ctx.sandbox;
    if (fs.existsSync(db)) compactCopy(db, path.join(ctx.out, `opencode.${label}.db`));
    if (fs.existsSync(storage)) fs.cpSync(storage, path.join(ctx.out, `storage.${label}`), { recursive: true });
  },
  writeFixtures,
};

function sandbox(ctx) {
  const dirs = Object.fromEntries(["home", "data", "config", "state", "cache", "project"].map((d) => [d, path.join(ctx.work, d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const legacy = isLegacy(ctx.version);
  for (const [name, content] of Object.entries(ctx.scenario.project ?? {})) fs.writeFileSync(path.join(dirs.project, name), content);
  // The 1.18 captures always had .gitkeep in the project, the 1.1.65 one only its files (the project id is the commit).
  if (!legacy) fs.writeFileSync(path.join(dirs.project, ".gitkeep"), "");
  const gitEnv = {
    PATH: process.env.PATH,
    HOME: dirs.home,
    GIT_AUTHOR_NAME: "mock",
    GIT_AUTHOR_EMAIL: "mock@example.invalid",
    GIT_COMMITTER_NAME: "mock",
    GIT_COMMITTER_EMAIL: "mock@example.invalid",
    GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
    GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
  };
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["commit", "-q", "--allow-empty", "-m", "init"],
  ])
    execFileSync("git", args, { cwd: dirs.project, env: gitEnv });

  const modelId = ctx.model.split("/").slice(1).join("/");
  const config = {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model: ctx.model,
    ...(legacy ? { permission: { bash: "allow", edit: "allow" } } : {}),
    ...ctx.scenario.config,
    provider: {
      anthropic: {
        options: { baseURL: `${ctx.mock.url}/v1` },
        ...(ctx.scenario.dropBlock === false ? { models: { [modelId]: { options: { thinking: { blockBinding: false } } } } } : {}),
      },
    },
  };
  fs.mkdirSync(path.join(dirs.config, "opencode"), { recursive: true });
  fs.writeFileSync(path.join(dirs.config, "opencode", "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
  const xdg = { HOME: dirs.home, XDG_DATA_HOME: dirs.data, XDG_CONFIG_HOME: dirs.config, XDG_STATE_HOME: dirs.state, XDG_CACHE_HOME: dirs.cache };
  const env = (version) => ({
    PATH: process.env.PATH,
    ...xdg,
    TERM: "dumb",
    LANG: "C.UTF-8",
    TZ: "UTC",
    ANTHROPIC_API_KEY: "sk-ant-test",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    ...(isLegacy(version) ? { OPENCODE_DISABLE_DEFAULT_PLUGINS: "1" } : { OPENCODE_DISABLE_CHANNEL_DB: "1" }),
  });
  const store = path.join(dirs.data, "opencode");
  return {
    dirs,
    env,
    cwd: dirs.project,
    store,
    db: path.join(store, "opencode.db"),
    storage: path.join(store, "storage"),
    // recover sees what the user's shell would: the same HOME and XDG dirs (its backups go to <work>/state/recover).
    recoverEnv: { HOME: dirs.home, XDG_DATA_HOME: dirs.data, XDG_STATE_HOME: dirs.state, LANG: "C.UTF-8", TZ: "UTC", TERM: "dumb" },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the stores.

export function withDb(file, fn, options = { readonly: true, fileMustExist: true }) {
  const db = new Database(file, options);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** The sessions of a JSON tree: session/<projectID>/<sessionID>.json. */
export function treeSessions(storage) {
  return listFiles(path.join(storage, "session"))
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(fs.readFileSync(path.join(storage, "session", f), "utf8")));
}

/**
 * Every row of every table (sqlite_* left out), each table's rows sorted by their JSON: the restore check compares
 * the rows, not the file (a restore may give rows back under other rowids or pages, the client reads the same).
 */
export function tableRows(file) {
  return withDb(file, (db) => {
    const out = {};
    for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all())
      out[name] = db
        .prepare(`SELECT * FROM "${name}"`)
        .all()
        .map((r) => [JSON.stringify(r), r])
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .map(([, r]) => r);
    return out;
  });
}

/**
 * A small standalone copy of the store: the db with its WAL copied, checkpointed, journal_mode DELETE, VACUUMed. With
 * pageSize (fixtures: 1024) the copy is rebuilt with that page size: a fresh 1.18 store has ~60 tables and indexes,
 * mostly empty, each at least one page, so 4096-byte pages make ~260 KB and 1024-byte pages ~70 KB; content is equal.
 */
/**
 * A store over 8 MB (an attachment of tens of megabytes, written twice by 1.18: in its part and in the event log) is
 * kept gzipped: its padding compresses to almost nothing, and the tests unpack it into a temporary folder.
 */
function gzipIfLarge(file) {
  if (fs.statSync(file).size <= 8 * 1024 * 1024) return;
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
  fs.rmSync(file);
}

export function compactCopy(src, dest, pageSize) {
  const tmp = `${dest}.tmpdir`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) if (fs.existsSync(src + suffix)) fs.copyFileSync(src + suffix, path.join(tmp, `opencode.db${suffix}`));
  withDb(
    path.join(tmp, "opencode.db"),
    (db) => {
      db.pragma("wal_checkpoint(TRUNCATE)");
      db.pragma("journal_mode = DELETE");
      if (pageSize) db.pragma(`page_size = ${pageSize}`);
      db.exec("VACUUM");
    },
    {},
  );
  fs.copyFileSync(path.join(tmp, "opencode.db"), dest);
  fs.rmSync(tmp, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------------------------
// Editing a session, the same way in both stores (the client is not running then).

/**
 * Run `fn(store, sessionId)` on the session of `ctx` (opencode.db in one transaction, or the JSON tree) and return what
 * it returns (the edit's note). `store`: messages() -> [{ id, time_created, ...data, parts: [{ id, ...data }] }] in the
 * client's order; updateMessage / updatePart(id, fn(data)); deleteMessage(id) (with its parts) / deletePart(id);
 * moveParts(fromMessage, toMessage); insertMessage(id, at, data); insertPart(id, messageId, at, data);
 * insertPartAfter(partId, data) -> the new id (sorting right after it: ids order parts within a message).
 */
export function editSession(ctx, fn) {
  const { id } = ctx.session;
  if (ctx.session.db) return withDb(ctx.sandbox.db, (db) => db.transaction(() => fn(sqliteSession(db, id), id))(), {});
  return fn(treeSession(ctx.sandbox.storage, id), id);
}

function sqliteSession(db, sessionId) {
  const get = (table, id) => JSON.parse(db.prepare(`SELECT data FROM ${table} WHERE id = ?`).get(id).data);
  const put = (table, id, data) => db.prepare(`UPDATE ${table} SET data = ? WHERE id = ?`).run(JSON.stringify(data), id);
  const update = (table) => (id, fn) => {
    const d = get(table, id);
    fn(d);
    put(table, id, d);
  };
  const insertPart = (id, messageId, at, data) =>
    db
      .prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)")
      .run(id, messageId, sessionId, at, at, JSON.stringify(data));
  return {
    messages: () =>
      db
        .prepare("SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id")
        .all(sessionId)
        .map((m) => ({
          id: m.id,
          time_created: m.time_created,
          ...JSON.parse(m.data),
          parts: db
            .prepare("SELECT id, data FROM part WHERE message_id = ? ORDER BY id")
            .all(m.id)
            .map((p) => ({ id: p.id, ...JSON.parse(p.data) })),
        })),
    updateMessage: update("message"),
    updatePart: update("part"),
    deletePart: (id) => db.prepare("DELETE FROM part WHERE id = ?").run(id),
    deleteMessage(id) {
      db.prepare("DELETE FROM part WHERE message_id = ?").run(id);
      db.prepare("DELETE FROM message WHERE id = ?").run(id);
    },
    moveParts: (from, to) => db.prepare("UPDATE part SET message_id = ? WHERE message_id = ?").run(to, from),
    insertMessage: (id, at, data) =>
      db.prepare("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)").run(id, sessionId, at, at, JSON.stringify(data)),
    insertPart,
    insertPartAfter(afterId, data) {
      const r = db.prepare("SELECT message_id, time_created FROM part WHERE id = ?").get(afterId);
      insertPart(`${afterId}0`, r.message_id, r.time_created, data);
      return `${afterId}0`;
    },
  };
}

function treeSession(storage, sessionId) {
  const read = (f) => JSON.parse(fs.readFileSync(f, "utf8"));
  // As the client writes them: pretty-printed, no final newline.
  const write = (f, o) => {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, JSON.stringify(o, null, 2));
  };
  const messageFile = (id) => path.join(storage, "message", sessionId, `${id}.json`);
  const partDir = (messageId) => path.join(storage, "part", messageId);
  const messageIds = () => listFiles(path.join(storage, "message", sessionId)).map((f) => f.replace(/\.json$/, ""));
  const partFile = (id) => {
    for (const m of messageIds()) if (fs.existsSync(path.join(partDir(m), `${id}.json`))) return path.join(partDir(m), `${id}.json`);
    throw new Error(`no part ${id} in session ${sessionId}`);
  };
  const update = (fileOf) => (id, fn) => {
    const f = fileOf(id);
    const o = read(f);
    fn(o);
    write(f, o);
  };
  const insertPart = (id, messageId, _at, data) =>
    write(path.join(partDir(messageId), `${id}.json`), { id, sessionID: sessionId, messageID: messageId, ...data });
  return {
    messages: () =>
      messageIds()
        .map((id) => read(messageFile(id)))
        .map((m) => ({
          time_created: m.time?.created,
          ...m,
          parts: listFiles(partDir(m.id)).map((f) => read(path.join(partDir(m.id), f))),
        }))
        .sort((a, b) => a.time_created - b.time_created || (a.id < b.id ? -1 : 1)),
    updateMessage: update(messageFile),
    updatePart: update(partFile),
    deletePart: (id) => fs.rmSync(partFile(id)),
    deleteMessage(id) {
      fs.rmSync(partDir(id), { recursive: true, force: true });
      fs.rmSync(messageFile(id));
    },
    moveParts(from, to) {
      for (const f of listFiles(partDir(from))) {
        const o = read(path.join(partDir(from), f));
        o.messageID = to;
        write(path.join(partDir(to), f), o);
      }
      fs.rmSync(partDir(from), { recursive: true, force: true });
    },
    insertMessage: (id, _at, data) => write(messageFile(id), { id, sessionID: sessionId, ...data }),
    insertPart,
    insertPartAfter(afterId, data) {
      const messageId = read(partFile(afterId)).messageID;
      insertPart(`${afterId}0`, messageId, null, data);
      return `${afterId}0`;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Fixtures (fixtures/opencode-1.18/README.md, fixtures/opencode-1.1.65/README.md).

// The marker names the script the committed fixtures were first captured with, so a rerun changes only what the
// client changes.
const BY = "capture-opencode-request.mjs";
/** The fixture form of a request body: `tools` reduced to names, a system text over 4000 characters cut in the middle. */
export function trimRequest(body) {
  const out = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === "tools") out.tools = v.map((t) => t.name);
    else if (k === "system" && Array.isArray(v))
      out.system = v.map((b) =>
        b.type === "text" && b.text.length > 4000
          ? { ...b, text: `${b.text.slice(0, 1500)}\n[... ${b.text.length - 3000} characters cut by ${BY} ...]\n${b.text.slice(-1500)}` }
          : b,
      );
    else out[k] = v;
  }
  return out;
}

/** The signatures of the session's signed reasoning parts in `file`, in the client's order. */
function storedSignatures(file, sessionId) {
  return withDb(file, (db) => sqliteSession(db, sessionId).messages())
    .flatMap((m) => m.parts)
    .filter((p) => p.type === "reasoning" && p.metadata?.anthropic?.signature)
    .map((p) => p.metadata.anthropic.signature);
}

/**
 * The scenario's fixtures, by its `fixture`:
 * - "request" (default; 1.2+): <dir>/<name>/opencode.db, the store after the captured step (compacted, 1024-byte
 *   pages), and <name>.request.json, that step's first main-loop request (trimRequest).
 * - "repair" (a repair loop; 1.2+; only from a run that passed): <dir>/<name>/opencode.db, the store as recover found
 *   it, and expected.json: recover's command (without --store), the clock it ran at, its plan, and the signed
 *   reasoning before it and the thinking the client sent after it (the binding mock accepted exactly these).
 * - "tree" (1.1.x): <dir>/storage, the whole JSON tree after the captured step, byte for byte.
 */
function writeFixtures(ctx, dir, { verdict, requests }) {
  const sc = ctx.scenario;
  const name = ctx.name;
  const kind = sc.fixture ?? "request";
  const say = (line) => console.error(`[opencode ${ctx.version} ${name}] fixtures: ${line}`);
  const n = verdict.captureStep;
  if (kind === "tree") {
    const dest = path.join(dir, "storage");
    fs.rmSync(dest, { recursive: true, force: true });
    fs.cpSync(path.join(ctx.out, `storage.after-step-${n}`), dest, { recursive: true });
    return say(`${listFiles(dest).length} files in ${dest}`);
  }
  if (!ctx.session?.db) return say(`none: ${kind} fixtures are of opencode.db, this session is in the JSON tree`);
  const fx = path.join(dir, name);
  const firstMain = (step) => requests.find((q) => q.tag === step && q.main);
  if (kind === "request") {
    fs.mkdirSync(fx, { recursive: true });
    compactCopy(path.join(ctx.out, `opencode.after-step-${n}.db`), path.join(fx, "opencode.db"), 1024);
    const req = firstMain(n);
    if (req) fs.writeFileSync(path.join(fx, `${name}.request.json`), `${JSON.stringify(trimRequest(req.body), null, 2)}\n`);
    return say(`${fx}/opencode.db, ${req ? `${name}.request.json` : "no request in the captured step"}`);
  }
  const repaired = verdict.steps.find((s) => s.kind === "recover" && !s.skipped);
  if (!repaired) return say("none: no recover step ran (a repair fixture comes from --loop)");
  if (!verdict.pass) return say("none: the loop failed");
  fs.rmSync(fx, { recursive: true, force: true });
  fs.mkdirSync(fx, { recursive: true });
  const beforeDb = path.join(ctx.out, `opencode.before-step-${repaired.step}.db`);
  compactCopy(beforeDb, path.join(fx, "opencode.db"), 1024);
  gzipIfLarge(path.join(fx, "opencode.db"));
  const last = verdict.steps.at(-1).step;
  const kept = (firstMain(last)?.body.messages ?? [])
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === "thinking" || b.type === "redacted_thinking")
    .map((b) => b.signature ?? b.data);
  const thinkingBefore = storedSignatures(beforeDb, ctx.session.id);
  const refusedAt = sc.steps.findIndex((s) => s.expect >= 400) + 1;
  const refused = verdict.steps.find((s) => s.step === refusedAt);
  const store = repaired.argv.indexOf("--store");
  const expected = {
    scenario: name,
    about: sc.about,
    client: `opencode-ai@${ctx.version}`,
    sessionId: ctx.session.id,
    model: ctx.model,
    dropBlock: sc.dropBlock !== false,
    // recover's command (`--store <a copy of this folder>` to add), and the clock it ran at (its 10-minute live
    // window and 60 s write guard are judged against it).
    recover: repaired.argv.filter((_, i) => i !== store && i !== store + 1),
    ranAt: repaired.ranAt,
    error: repaired.error ?? null,
    rejected: refused ? { step: refused.step, answers: refused.answers.map((a) => `${a.status}${a.rule ? ` ${a.rule}` : ""}`) } : null,
    plan: { changes: repaired.plan?.changes, rules: repaired.plan?.rules, droppedThinking: repaired.plan?.droppedThinking },
    thinkingBefore,
    kept,
    dropped: thinkingBefore.filter((s) => !kept.includes(s)),
  };
  fs.writeFileSync(path.join(fx, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
  const db = fs.existsSync(path.join(fx, "opencode.db")) ? "opencode.db" : "opencode.db.gz";
  say(`${fx}/${db} (${fs.statSync(path.join(fx, db)).size} bytes), expected.json`);
}
