#!/usr/bin/env node
// Probe (issue 41): what a plugin of the real opencode sees, and whether a running opencode reads a session back from
// opencode.db for its next prompt. Offline, against the loopback Messages API mock, in the client driver's sandbox.
//
//   node scripts/clients/probes/opencode-plugin.mjs [--version 1.18.33] [--work /tmp/oc-probe] [--out /tmp/oc-probe-out]
//        [--plugin-repairs] [--damage whitespace|interrupted-tool]
//
// 1. `opencode run` (without --pure, so external plugins load) writes a session of one turn. A plugin in the global
//    config dir ($XDG_CONFIG_HOME/opencode/plugin/) and one in the project (.opencode/plugins/) log every event they
//    get to <out>/plugin.jsonl (full payloads for session.* events, the type only for the rest) and, on session.error,
//    run a subprocess through the Bun shell `$` they are given.
// 2. `opencode serve` starts; prompt 2 (POST /session/<id>/message) is answered 400 invalid_request_error (scripted;
//    with --plugin-repairs, by the API rules the damage breaks).
// 3. From outside, while serve runs: recover's own guard (`recover session repair`, without and with --force), then
//    a direct SQLite edit of the first user text part (a marker appended) in one BEGIN IMMEDIATE transaction.
// 4. Prompt 3 on the same session in the same serve process: does the request carry the marker (read back from the
//    db) and the refused turn?
// With --plugin-repairs the plugin is the repair, end to end: the mock applies the API's rules (messages-rules.mjs) on
// every request, so prompt 2 is refused by the rule the planted damage breaks (not a scripted reply); the global
// plugin, on `session.error`, waits for that session's `session.idle` and runs `recover session repair <id> --error
// <text> --yes --force` itself (from inside opencode, as issue 41's plugin would); step 3 only waits for it, and
// prompt 3 must be accepted by the rules.
// --damage interrupted-tool: step 1 is a turn with two parallel tool calls (read, bash), and the planted damage is the
// `interrupted-tool` scenario's (scenarios/opencode.mjs): final assistant message deleted, read -> running, bash ->
// pending, step-finish and time.completed gone; the default is the whitespace text part.
// Everything lands in <out>: requests.jsonl (the mock's log), plugin.jsonl, serve.stderr, summary.json.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { spawnSync } from "node:child_process";
import Database from "better-sqlite3";
import { httpError, plainReply, reply, startMock, text, toolUse } from "../api/messages.mjs";
import { enforcer } from "../api/messages-rules.mjs";
import { loadClient } from "../index.mjs";
import { RECOVER_BIN } from "../lib/engine.mjs";
import { installClient } from "../lib/install.mjs";
import { runProcess, startProcess } from "../lib/proc.mjs";
import { flag as arg } from "./probe.mjs";

const version = arg("version", "1.18.33");
const work = path.resolve(arg("work", "/tmp/oc-probe"));
const out = path.resolve(arg("out", "/tmp/oc-probe-out"));
const MARKER = "EDITED-FROM-OUTSIDE";
// --installed-plugin: the repair is recover's own plugin, as `recover hooks install opencode` writes it (issue 41).
const installedPlugin = process.argv.includes("--installed-plugin");
const pluginRepairs = process.argv.includes("--plugin-repairs") || installedPlugin;
const damage = arg("damage", "whitespace");
if (!["whitespace", "interrupted-tool"].includes(damage)) throw new Error(`--damage whitespace|interrupted-tool, not ${damage}`);
fs.rmSync(work, { recursive: true, force: true });
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
fs.mkdirSync(out, { recursive: true });

const { driver } = await loadClient("opencode");
const installed = installClient(driver, version);
const pluginLog = path.join(out, "plugin.jsonl");

// The plugin, as a user would drop it in: a module whose exported functions are plugins (the form the docs show).
const plugin = (where, repair) => `import fs from "node:fs";
import { spawnSync } from "node:child_process";
const LOG = ${JSON.stringify(pluginLog)};
const REPAIR = ${JSON.stringify(repair ?? null)};
const pending = new Map();
const log = (o) => fs.appendFileSync(LOG, JSON.stringify({ where: ${JSON.stringify(where)}, at: Date.now(), ...o }) + "\\n");
export const RecoverProbe = async (input) => {
  log({ kind: "init", inputKeys: Object.keys(input).sort(), directory: input.directory, worktree: input.worktree, shell: typeof input.$, pid: process.pid, bun: typeof Bun !== "undefined" ? Bun.version : null });
  return {
    event: async ({ event }) => {
      const full = event.type.startsWith("session.");
      log({ kind: "event", type: event.type, ...(full ? { event } : {}) });
      if (REPAIR && event.type === "session.error") pending.set(event.properties.sessionID, event.properties.error?.data?.message);
      if (REPAIR && event.type === "session.idle" && pending.has(event.properties.sessionID)) {
        const id = event.properties.sessionID;
        const text = pending.get(id);
        pending.delete(id);
        const t0 = Date.now();
        const r = spawnSync(REPAIR.node, [REPAIR.recover, "session", "repair", id, ...(text ? ["--error", text] : []), "--yes", "--force", "--store", REPAIR.store], { encoding: "utf8" });
        log({ kind: "repair", exit: r.status, ms: Date.now() - t0, stdout: r.stdout, stderr: r.stderr });
      }
      if (event.type === "session.error") {
        const t0 = Date.now();
        try {
          const r = await input.$\`echo subprocess-ran \${event.properties.sessionID}\`.quiet().nothrow();
          log({ kind: "shell", exitCode: r.exitCode, stdout: r.stdout.toString(), ms: Date.now() - t0 });
        } catch (e) {
          log({ kind: "shell-error", message: String(e) });
        }
      }
    },
  };
};
`;

const log = path.join(out, "requests.jsonl");
const replies = [];
const rules = enforcer();
const state = {
  log,
  tag: 1,
  next(body, entry) {
    const judged = pluginRepairs ? rules.check(body, entry.headers) : null;
    if (judged?.refused) {
      entry.answer = { status: judged.refused.status, rule: judged.rule, message: judged.refused.error.message };
      return judged.refused;
    }
    const r = replies.shift();
    if (r && !r.status) rules.served(body, r, judged?.passed);
    return r;
  },
};
const mock = await startMock(state);
const ctx = { work, version, model: driver.defaultModel, scenario: {}, mock };
const sb = driver.sandbox(ctx);
fs.mkdirSync(path.join(sb.dirs.config, "opencode", "plugin"), { recursive: true });
fs.writeFileSync(
  path.join(sb.dirs.config, "opencode", "plugin", "recover-probe.js"),
  plugin("global", pluginRepairs && !installedPlugin ? { node: process.execPath, recover: RECOVER_BIN, store: sb.store } : null),
);
const hookEnv = { ...process.env, ...sb.env(version), NO_COLOR: "1", CI: "true" };
let configBefore;
if (installedPlugin) {
  configBefore = filesUnder(path.join(sb.dirs.config, "opencode"));
  const r = spawnSync(process.execPath, [RECOVER_BIN, "hooks", "install", "opencode", "--yes"], { env: hookEnv, encoding: "utf8" });
  console.error(JSON.stringify({ step: 0, what: "recover hooks install opencode", exit: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() }));
  if (r.status !== 0) throw new Error("hooks install failed");
}
/** Every file under `dir` with its bytes, as hex digests (what uninstall must give back). */
function filesUnder(dir) {
  const found = {};
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else found[path.relative(dir, p)] = fs.readFileSync(p).toString("base64").length;
    }
  };
  walk(dir);
  return found;
}
fs.mkdirSync(path.join(sb.cwd, ".opencode", "plugins"), { recursive: true });
fs.writeFileSync(path.join(sb.cwd, ".opencode", "plugins", "recover-probe.js"), plugin("project"));
const env = sb.env(version);
const summary = { version, steps: [] };
const say = (o) => {
  summary.steps.push(o);
  console.error(JSON.stringify(o));
};

// 1. One turn with `opencode run` (no --pure).
const toolTurn = damage === "interrupted-tool";
if (toolTurn) {
  fs.writeFileSync(path.join(sb.cwd, "notes.txt"), "alpha\nbeta\n");
  replies.push(
    reply([
      text("Doing both."),
      toolUse("toolu_mock_read_01", "read", { filePath: path.join(sb.cwd, "notes.txt") }),
      toolUse("toolu_mock_bash_02", "bash", { command: "echo hi", description: "Print hi" }),
    ]),
    plainReply("one"),
  );
} else replies.push(plainReply("one"));
const prompt1 = toolTurn ? ["Read", "notes.txt", "and", "run", "`echo", "hi`,", "both", "at", "once."] : ["Say", "one."];
const run = await runProcess(installed.command, ["run", "--format", "json", "--model", ctx.model, "--auto", "--title", "probe", "--", ...prompt1], {
  cwd: sb.cwd,
  env,
  timeoutMs: 120_000,
  stdoutFile: path.join(out, "step-1.stdout"),
  stderrFile: path.join(out, "step-1.stderr"),
});
const db = sb.db;
const sessionId = new Database(db, { readonly: true }).prepare("SELECT id FROM session").get()?.id;
say({ step: 1, what: "opencode run", exit: run.code, sessionId });

// Damage planted while no opencode runs (so recover has something to repair under the server): the assistant's text
// part made whitespace (what the API refuses with "text content blocks must contain non-whitespace text"), or the
// interrupted tool turn.
{
  const d0 = new Database(db);
  const get = (sql, ...a) => d0.prepare(sql).get(...a);
  const all = (sql, ...a) => d0.prepare(sql).all(...a);
  const put = (table, id, data) => d0.prepare(`UPDATE ${table} SET data = ? WHERE id = ?`).run(JSON.stringify(data), id);
  if (!toolTurn) {
    const p = get("SELECT id, data FROM part WHERE session_id = ? AND json_extract(data,'$.type') = 'text' AND json_extract(data,'$.text') = 'one'", sessionId);
    const data = JSON.parse(p.data);
    data.text = " \n ";
    put("part", p.id, data);
    say({ step: 1, what: "planted: assistant text part made whitespace", part: p.id });
  } else {
    const [first, second] = all(
      "SELECT id, data FROM message WHERE session_id = ? AND json_extract(data,'$.role') = 'assistant' ORDER BY time_created, id",
      sessionId,
    );
    d0.transaction(() => {
      d0.prepare("DELETE FROM part WHERE message_id = ?").run(second.id);
      d0.prepare("DELETE FROM message WHERE id = ?").run(second.id);
      for (const p of all("SELECT id, data FROM part WHERE message_id = ?", first.id)) {
        const d = JSON.parse(p.data);
        if (d.type === "step-finish") d0.prepare("DELETE FROM part WHERE id = ?").run(p.id);
        else if (d.type === "tool" && d.tool === "read") {
          d.state = { status: "running", input: d.state.input, title: "notes.txt", metadata: {}, time: { start: d.state.time.start } };
          put("part", p.id, d);
        } else if (d.type === "tool" && d.tool === "bash") {
          d.state = { status: "pending", input: {}, raw: "" };
          put("part", p.id, d);
        }
      }
      const m = JSON.parse(first.data);
      delete m.time.completed;
      delete m.finish;
      put("message", first.id, m);
    })();
    say({ step: 1, what: `planted: interrupted tool turn (${second.id} deleted; in ${first.id} read running, bash pending, no step-finish)` });
  }
  d0.close();
}

// 2. serve, prompt 2 refused.
const port = await new Promise((r) => {
  const s = net.createServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => r(p));
  });
});
state.tag = 2;
const serve = startProcess(installed.command, ["serve", "--port", String(port), "--hostname", "127.0.0.1", "--print-logs"], {
  cwd: sb.cwd,
  env,
  timeoutMs: 300_000,
  stdoutFile: path.join(out, "serve.stdout"),
  stderrFile: path.join(out, "serve.stderr"),
});
const base = `http://127.0.0.1:${port}`;
// The server takes seconds to start on a busy machine: ask until it answers (at most 2 minutes).
const tServe = Date.now();
for (let i = 0; i < 60; i++) {
  try {
    // A request that reaches the server while it is still starting may never be answered (seen with 1.18.33: one
    // hung for the whole run), so each try gives up after 10 s.
    if ((await fetch(`${base}/session/${sessionId}`, { signal: AbortSignal.timeout(10_000) })).ok) break;
  } catch (e) {
    console.error(`serve not answering yet (${Date.now() - tServe} ms): ${e.cause?.code ?? e.message}`);
  }
  await new Promise((r) => setTimeout(r, 1000));
}
const tServeReady = Date.now();
const prompt = async (words) => {
  const t0 = Date.now();
  const r = await fetch(`${base}/session/${sessionId}/message`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" }, parts: [{ type: "text", text: words }] }),
  });
  const body = await r.text();
  return { status: r.status, ms: Date.now() - t0, body: body.length > 3000 ? `${body.slice(0, 3000)}…` : body };
};
// Refused by the rules when they apply; else a scripted refusal with the API's wording for this damage.
replies.push(
  pluginRepairs
    ? plainReply("two")
    : httpError(400, "invalid_request_error", "messages.1.content.0.text: text content blocks must contain non-whitespace text"),
);
const p2 = await prompt("Say two.");
await new Promise((r) => setTimeout(r, 1500));
say({ step: 2, what: "serve: prompt 2 (refused, unless the client copes)", serveReadyMs: tServeReady - tServe, response: p2 });

// 3. recover under the running opencode, then the direct edit.
if (installedPlugin) {
  // recover's plugin repairs: wait (at most 60 s) for its backup in the sandbox's recover state dir.
  const backups = path.join(hookEnv.XDG_STATE_HOME ?? path.join(sb.dirs.home, ".local", "state"), "recover", "backups");
  const t0 = Date.now();
  while (!(fs.existsSync(backups) && fs.readdirSync(backups).length > 0) && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 250));
  say({
    step: 3,
    what: "recover's installed plugin: its repair's backup",
    waitedMs: Date.now() - t0,
    backups: fs.existsSync(backups) ? fs.readdirSync(backups) : [],
  });
} else if (pluginRepairs) {
  // The plugin repairs: wait (at most 60 s) for its log line.
  const t0 = Date.now();
  let repair;
  while (!repair && Date.now() - t0 < 60_000) {
    await new Promise((r) => setTimeout(r, 250));
    repair = fs.existsSync(pluginLog)
      ? fs
          .readFileSync(pluginLog, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .find((o) => o.kind === "repair")
      : undefined;
  }
  say({ step: 3, what: "the plugin's repair (from inside opencode)", waitedMs: Date.now() - t0, repair: repair ?? null });
} else {
  const renv = { ...process.env, ...sb.recoverEnv, NO_COLOR: "1", CI: "true" };
  for (const extra of [
    ["--error", "messages.1.content.0.text: text content blocks must contain non-whitespace text"],
    ["--error", "messages.1.content.0.text: text content blocks must contain non-whitespace text", "--force"],
  ]) {
    const r = spawnSync(process.execPath, [RECOVER_BIN, "session", "repair", sessionId, "--yes", "--store", sb.store, ...extra], {
      env: renv,
      cwd: sb.cwd,
      encoding: "utf8",
    });
    say({
      step: 3,
      what: `recover session repair ${extra.join(" ")}`.trim(),
      exit: r.status,
      stdout: r.stdout.trim().slice(0, 1500),
      stderr: r.stderr.trim().slice(0, 1500),
    });
  }
  const holders = fs
    .readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readdirSync(`/proc/${p}/fd`).some((fd) => {
          try {
            return fs.readlinkSync(`/proc/${p}/fd/${fd}`).startsWith(db);
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    });
  const w = new Database(db);
  const journal = w.pragma("journal_mode", { simple: true });
  const busy = w.pragma("busy_timeout", { simple: true });
  const t0 = Date.now();
  let edited;
  w.transaction(() => {
    const first = w
      .prepare(
        "SELECT p.id, p.data FROM part p JOIN message m ON m.id = p.message_id WHERE p.session_id = ? AND json_extract(m.data,'$.role') = 'user' AND json_extract(p.data,'$.type') = 'text' ORDER BY m.time_created, p.id LIMIT 1",
      )
      .get(sessionId);
    const d = JSON.parse(first.data);
    d.text = `${d.text} ${MARKER}`;
    w.prepare("UPDATE part SET data = ? WHERE id = ?").run(JSON.stringify(d), first.id);
    edited = { part: first.id, text: d.text };
  }).immediate();
  w.close();
  say({
    step: 3,
    what: "direct sqlite edit under serve",
    journal,
    busyTimeout: busy,
    ms: Date.now() - t0,
    edited,
    dbHolders: holders.map((p) => ({ pid: Number(p), comm: fs.readFileSync(`/proc/${p}/comm`, "utf8").trim() })),
  });
}

// 4. The next prompt in the same process.
state.tag = 4;
replies.push(plainReply("three"));
const p4 = await prompt("Say three.");
const reqs = fs
  .readFileSync(log, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const last = reqs.filter((q) => q.main).at(-1);
const texts = (last?.body.messages ?? []).map((m) => ({
  role: m.role,
  text: (Array.isArray(m.content) ? m.content : [{ type: "text", text: m.content }]).map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join(" | "),
}));
say({
  step: 4,
  what: "serve: prompt after the repair",
  status: p4.status,
  answer: last?.answer ?? null,
  carriesMarker: JSON.stringify(last?.body ?? {}).includes(MARKER),
  messages: texts,
});
serve.kill("probe done");
await serve.done;
if (installedPlugin) {
  const r = spawnSync(process.execPath, [RECOVER_BIN, "hooks", "uninstall", "opencode", "--yes"], { env: hookEnv, encoding: "utf8" });
  const after = filesUnder(path.join(sb.dirs.config, "opencode"));
  // opencode adds its own files to a config dir with a plugin (.gitignore, package.json, node_modules/): not recover's.
  const ours = (files) => Object.fromEntries(Object.entries(files).filter(([f]) => !/^(\.gitignore|package(-lock)?\.json|node_modules\/)/.test(f)));
  say({
    step: 5,
    what: "recover hooks uninstall opencode",
    exit: r.status,
    sameAsBefore: JSON.stringify(ours(after)) === JSON.stringify(ours(configBefore)),
    before: configBefore,
    after,
  });
}
await mock.close();
summary.plugin = fs.existsSync(pluginLog)
  ? fs
      .readFileSync(pluginLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
fs.writeFileSync(path.join(out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
console.error(`summary: ${path.join(out, "summary.json")}`);
