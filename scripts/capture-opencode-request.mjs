#!/usr/bin/env node
// Capture what the real opencode client sends to the Anthropic Messages API when it continues a session.
//
// Runs opencode offline (`opencode run`) against a loopback mock of the Messages API (this file), one scenario at a
// time: the first prompt(s) build a session in opencode's SQLite store, optional edits change stored rows
// (message / part `data` JSON) between steps, and a final `opencode run --session <id>` continues it. Every request the
// client makes is logged; the first main-loop request (one that carries `tools`) of the captured step is
// "the continuing request".
//
// Install the client (no global install, no network besides the npm registry):
//
//   npm install --prefix /tmp/oc-client opencode-ai@1.18.33
//   # the native binary comes with the optional dependency opencode-linux-x64 (and -baseline); npm already links
//   # node_modules/opencode-ai/bin/opencode.exe to it, so the postinstall (postinstall.mjs, which only picks the
//   # right platform binary) is not needed on linux-x64.
//   /tmp/oc-client/node_modules/.bin/opencode --version   # 1.18.33
//
// Run one scenario:
//
//   node scripts/capture-opencode-request.mjs --client /tmp/oc-client/node_modules/.bin/opencode \
//        --scenario thinking --out /tmp/oc-out/thinking
//   node scripts/capture-opencode-request.mjs --list            # the scenarios
//
// Options: --work <dir> (scratch root, wiped per run; default /tmp/oc-capture, kept fixed so the paths stored in the
// DB and the system prompt are the same on every run), --model <provider/id> (default anthropic/claude-sonnet-4-5),
// --timeout <s> per client run (default 120), --fixtures <dir> (also write <dir>/<scenario>/opencode.db, the store as
// the client left it after the last step (checkpointed, journal_mode DELETE, VACUUMed with 1024-byte pages), and
// <dir>/<scenario>/<scenario>.request.json, the continuing request with `tools` reduced to names and a long system
// text cut in the middle).
//
// Output in --out: requests.jsonl (every request: step, method, path, headers without credentials, body),
// step-<n>.stdout/.stderr (`--format json` events), rows-before-final.json / rows-after.json (session, messages and
// parts as stored, before the captured step and at the end), opencode.before-final.db / opencode.db (compact copies),
// request.json (the continuing request's full body), request.trimmed.json, meta.json (session id, edit notes).
//
// Isolation: HOME and XDG_{DATA,CONFIG,STATE,CACHE}_HOME under --work, cwd <work>/project (a git repo with one commit),
// config in $XDG_CONFIG_HOME/opencode/opencode.json: provider.anthropic.options.baseURL = the mock on 127.0.0.1,
// autoupdate false, share disabled. Env: ANTHROPIC_API_KEY=sk-ant-test, OPENCODE_DISABLE_MODELS_FETCH=1 (opencode then
// uses the models.dev snapshot compiled into the binary; without the switch it fetches models.dev),
// OPENCODE_DISABLE_AUTOUPDATE, OPENCODE_DISABLE_SHARE, OPENCODE_DISABLE_LSP_DOWNLOAD, OPENCODE_DISABLE_CHANNEL_DB
// (always opencode.db). `--pure` (no external plugins) and `--title` (no title request) on every run; `--auto`
// approves tool permissions. Plain Node ESM; better-sqlite3 is loaded from the repo's node_modules.

import { spawnSync, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { answerMessages, answeredCountTokens, readRequest, runToFiles } from "./mock-messages-api.mjs";
import { opencodeEnv, writeOpencodeConfig } from "./opencode-sandbox.mjs";

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
function openDb(file, opts) {
  const Database = require(path.join(HERE, "..", "node_modules", "better-sqlite3"));
  return new Database(file, opts);
}

// ---------------------------------------------------------------------------------------------------------------
// Mock replies. A reply is a list of content blocks the mock streams back plus a stop reason, or an HTTP error.

const text = (t) => ({ type: "text", text: t });
const thinking = (t, signature) => ({ type: "thinking", thinking: t, signature });
const toolUse = (id, name, input) => ({ type: "tool_use", id, name, input });
const reply = (blocks, stop) => ({
  blocks,
  stop: stop ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
});
const httpError = (status, type, message) => ({ error: { status, type, message } });

const SIG = (n) => `EsMock${n}SignatureAAAABBBBCCCCDDDDeeeeffff0000111122223333==`;

// ---------------------------------------------------------------------------------------------------------------
// Store edits, applied between steps to opencode.db (opencode is not running then).

function rows(db, sessionId) {
  const msgs = db
    .prepare("SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id")
    .all(sessionId)
    .map((r) => ({ id: r.id, time_created: r.time_created, ...JSON.parse(r.data) }));
  for (const m of msgs)
    m.parts = db
      .prepare("SELECT id, data FROM part WHERE message_id = ? ORDER BY id")
      .all(m.id)
      .map((p) => ({ id: p.id, ...JSON.parse(p.data) }));
  return msgs;
}
function updatePart(db, id, fn) {
  const r = db.prepare("SELECT data FROM part WHERE id = ?").get(id);
  const d = JSON.parse(r.data);
  fn(d);
  db.prepare("UPDATE part SET data = ? WHERE id = ?").run(JSON.stringify(d), id);
}
// Insert a part into a message with an id that sorts right after `afterId` (ids are ordered within a message).
function insertPartAfter(db, afterId, data) {
  const r = db.prepare("SELECT message_id, session_id, time_created, time_updated FROM part WHERE id = ?").get(afterId);
  const id = afterId + "0";
  db.prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)").run(
    id,
    r.message_id,
    r.session_id,
    r.time_created,
    r.time_updated,
    JSON.stringify(data),
  );
  return id;
}
const partsOf = (msgs, role, type) => msgs.filter((m) => m.role === role).flatMap((m) => m.parts.filter((p) => p.type === type));

// ---------------------------------------------------------------------------------------------------------------
// Scenarios. Each step runs the client once: { prompt, resume?: true, replies: [...main-loop replies], args?: [...],
// edit?(db, ctx) }. `edit` runs before the step. `project` files are created in the project dir before step 1.
// The captured ("continuing") request is the first main-loop request of step `captureStep` (default: the last step).

// A compaction killed mid-summary, as opencode leaves it (docs/research/opencode-compaction.md): the request (a user
// message holding a `compaction` part) and a summary reply saved before streaming, cut off: no finish, no completed.
function stuckCompaction(db, { sessionId }) {
  const msgs = rows(db, sessionId);
  const last = msgs.at(-1);
  const lastUser = msgs.filter((m) => m.role === "user").at(-1);
  const t = last.time_created + 1000;
  const request = `${last.id}1`;
  const summary = `${last.id}2`;
  const insertMessage = (id, at, data) =>
    db.prepare("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)").run(id, sessionId, at, at, JSON.stringify(data));
  const insertPart = (id, messageId, at, data) =>
    db
      .prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?,?)")
      .run(id, messageId, sessionId, at, at, JSON.stringify(data));
  insertMessage(request, t, { role: "user", time: { created: t }, agent: lastUser.agent, model: lastUser.model });
  insertPart(`prt_${request.slice(4)}`, request, t, { type: "compaction", auto: true, overflow: true });
  const assistant = msgs.filter((m) => m.role === "assistant").at(-1);
  insertMessage(summary, t + 500, {
    role: "assistant",
    time: { created: t + 500 },
    parentID: request,
    modelID: assistant.modelID,
    providerID: assistant.providerID,
    mode: "compaction",
    agent: "compaction",
    summary: true,
    path: assistant.path,
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  });
  insertPart(`prt_${summary.slice(4)}`, summary, t + 600, { type: "text", text: "## Goal\nSay hel", time: { start: t + 600 } });
  return `compaction request ${request} and its summary ${summary}, cut off (no finish, no time.completed)`;
}

/**
 * After the edit: `recover session repair --yes --force --include-live` on the store (opencode is not running; --force:
 * this script holds it; --include-live: the kill was seconds ago, which looks like a compaction still running).
 */
function recoverRepair(dbFile, { sessionId }) {
  const r = spawnSync(
    process.execPath,
    [path.join(HERE, "..", "bin", "recover"), "session", "repair", sessionId, "--yes", "--force", "--include-live", "--json", "--store", dbFile],
    {
      encoding: "utf8",
      env: { ...process.env, XDG_STATE_HOME: path.join(path.dirname(dbFile), "recover-state") },
    },
  );
  const changes = r.stdout ? (JSON.parse(r.stdout).sessions?.[0]?.changes ?? []) : [];
  return `recover repair exit ${r.status}: ${changes.map((c) => `${c.op} ${c.key?.record ?? ""} [${c.rules.join(",")}]`).join(", ") || r.stderr.trim()}`;
}

const scenarios = {
  "stuck-compaction": {
    about: "a text turn; then a compaction request with a summary cut off mid-stream is added (as a kill leaves it); then continue",
    steps: [
      { prompt: "Say hello.", replies: [reply([text("Hello! How can I help?")])] },
      {
        prompt: "What next?",
        resume: true,
        edit: stuckCompaction,
        replies: [reply([text("Summary: the user said hello.")]), reply([text("Nothing else to do.")]), reply([text("ok")])],
      },
    ],
  },
  "stuck-compaction-repaired": {
    about: "as stuck-compaction, then `recover session repair --yes` before continuing",
    steps: [
      { prompt: "Say hello.", replies: [reply([text("Hello! How can I help?")])] },
      {
        prompt: "What next?",
        resume: true,
        edit: stuckCompaction,
        afterEdit: recoverRepair,
        replies: [reply([text("Nothing else to do.")]), reply([text("ok")]), reply([text("ok")])],
      },
    ],
  },
  text: {
    about: "plain text turn, then continue",
    steps: [
      { prompt: "Say hello.", replies: [reply([text("Hello! How can I help?")])] },
      { prompt: "Say it again.", resume: true, replies: [reply([text("Hello again.")])] },
    ],
  },
  thinking: {
    about: "two turns answered with signed thinking + text, a third plain; then continue (are earlier thinking blocks sent?)",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("First I think about one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Now I think about two.", SIG(2)), text("two")])] },
      { prompt: "Say three.", resume: true, replies: [reply([text("three")])] },
    ],
  },
  "thinking-variant": {
    about: "as thinking, but every run with --variant high (extended thinking requested)",
    variant: "high",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("First I think about one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Now I think about two.", SIG(2)), text("two")])] },
      { prompt: "Say three.", resume: true, replies: [reply([text("three")])] },
    ],
  },
  "tool-bash": {
    about: "text + tool_use (bash echo hi) in one response, the result, a final text; then continue",
    steps: [
      {
        prompt: "Run `echo hi` with bash and tell me the output.",
        replies: [
          reply([text("I'll run it."), toolUse("toolu_mock_bash_01", "bash", { command: "echo hi", description: "Print hi" })]),
          reply([text("The output is hi.")]),
        ],
      },
      { prompt: "Thanks.", resume: true, replies: [reply([text("You're welcome.")])] },
    ],
  },
  "thinking-tool": {
    about: "signed thinking + text + tool_use (bash), result, then thinking + tool_use (read), result, thinking + text; then continue",
    project: { "notes.txt": "alpha\nbeta\n" },
    variant: "high",
    steps: [
      {
        prompt: "Think, run `echo hi` with bash, read notes.txt, then tell me.",
        replies: [
          reply([
            thinking("I should run echo.", SIG(1)),
            text("Running it."),
            toolUse("toolu_mock_bash_01", "bash", { command: "echo hi", description: "Print hi" }),
          ]),
          reply([thinking("Now read the file.", SIG(2)), toolUse("toolu_mock_read_02", "read", { filePath: "/tmp/oc-capture/project/notes.txt" })]),
          reply([thinking("The output was hi and the file has alpha, beta.", SIG(3)), text("It printed hi; notes.txt has alpha and beta.")]),
        ],
      },
      { prompt: "Thanks.", resume: true, replies: [reply([text("You're welcome.")])] },
    ],
  },
  "tool-parallel": {
    about: "two tool_use blocks in one response (read + bash), both results, final text; then continue",
    project: { "notes.txt": "alpha\nbeta\n" },
    steps: [
      {
        prompt: "Read notes.txt and run `echo hi`, both at once.",
        replies: [
          reply([
            text("Doing both."),
            toolUse("toolu_mock_read_01", "read", { filePath: "/tmp/oc-capture/project/notes.txt" }),
            toolUse("toolu_mock_bash_02", "bash", { command: "echo hi", description: "Print hi" }),
          ]),
          reply([text("notes.txt has alpha and beta; echo printed hi.")]),
        ],
      },
      { prompt: "Thanks.", resume: true, replies: [reply([text("You're welcome.")])] },
    ],
  },
  "tool-error": {
    about: "tool_use of bash that fails (exit 3), of a tool that does not exist, and read of a missing file (tool error); results; final text; then continue",
    steps: [
      {
        prompt: "Run `exit 3` with bash.",
        replies: [
          reply([
            toolUse("toolu_mock_bash_01", "bash", { command: "echo oops; exit 3", description: "Fail" }),
            toolUse("toolu_mock_nope_02", "nosuchtool", { x: 1 }),
            toolUse("toolu_mock_read_03", "read", { filePath: "/tmp/oc-capture/project/missing.txt" }),
          ]),
          reply([text("It failed.")]),
        ],
      },
      { prompt: "Thanks.", resume: true, replies: [reply([text("You're welcome.")])] },
    ],
  },
  "merged-steps": {
    about:
      "tool turn (text + tool_use, then text) whose two assistant messages are merged into one in the store (parts moved, second message deleted); then continue",
    steps: [
      {
        prompt: "Run `echo hi` with bash and tell me the output.",
        replies: [
          reply([text("I'll run it."), toolUse("toolu_mock_bash_01", "bash", { command: "echo hi", description: "Print hi" })]),
          reply([text("The output is hi.")]),
        ],
      },
      {
        prompt: "Thanks.",
        resume: true,
        replies: [reply([text("You're welcome.")])],
        edit(db, { sessionId }) {
          const a = rows(db, sessionId).filter((m) => m.role === "assistant");
          const [first, second] = a;
          db.prepare("UPDATE part SET message_id = ? WHERE message_id = ?").run(first.id, second.id);
          db.prepare("DELETE FROM message WHERE id = ?").run(second.id);
          return `parts of assistant ${second.id} moved into ${first.id} (now step-start, text, tool, step-finish, step-start, text, step-finish); ${second.id} deleted`;
        },
      },
    ],
  },
  "interrupted-tool": {
    about:
      "two parallel tool calls; store edited to look hard-killed mid-tool: one tool running, one pending, no step-finish, no time.completed, final message deleted; then continue",
    project: { "notes.txt": "alpha\nbeta\n" },
    steps: [
      {
        prompt: "Read notes.txt and run `echo hi`, both at once.",
        replies: [
          reply([
            text("Doing both."),
            toolUse("toolu_mock_read_01", "read", { filePath: "/tmp/oc-capture/project/notes.txt" }),
            toolUse("toolu_mock_bash_02", "bash", { command: "echo hi", description: "Print hi" }),
          ]),
          reply([text("notes.txt has alpha and beta; echo printed hi.")]),
        ],
      },
      {
        prompt: "Continue.",
        resume: true,
        replies: [reply([text("Continuing.")])],
        edit(db, { sessionId }) {
          const a = rows(db, sessionId).filter((m) => m.role === "assistant");
          const [first, second] = a;
          db.prepare("DELETE FROM part WHERE message_id = ?").run(second.id);
          db.prepare("DELETE FROM message WHERE id = ?").run(second.id);
          for (const p of first.parts) {
            if (p.type === "step-finish") db.prepare("DELETE FROM part WHERE id = ?").run(p.id);
            if (p.type === "tool" && p.tool === "read")
              updatePart(
                db,
                p.id,
                (d) => (d.state = { status: "running", input: d.state.input, title: "notes.txt", metadata: {}, time: { start: d.state.time.start } }),
              );
            if (p.type === "tool" && p.tool === "bash") updatePart(db, p.id, (d) => (d.state = { status: "pending", input: {}, raw: "" }));
          }
          const m = JSON.parse(db.prepare("SELECT data FROM message WHERE id = ?").get(first.id).data);
          delete m.time.completed;
          delete m.finish;
          db.prepare("UPDATE message SET data = ? WHERE id = ?").run(JSON.stringify(m), first.id);
          return `final assistant ${second.id} deleted; in ${first.id}: step-finish deleted, read tool -> running, bash tool -> pending (input {}), time.completed and finish removed`;
        },
      },
    ],
  },
  "api-error": {
    about: "turn 1 ok; turn 2 the mock answers 400 (invalid_request_error); turn 3 continues (is the errored turn sent?)",
    steps: [
      { prompt: "Say one.", replies: [reply([text("one")])] },
      { prompt: "Say two.", resume: true, replies: [httpError(400, "invalid_request_error", "mock: messages.1: something is wrong")] },
      { prompt: "Say three.", resume: true, replies: [reply([text("three")])] },
    ],
  },
  "api-error-tool": {
    about: "turn 1: tool_use (bash), then the follow-up request answered 400; turn 2 continues",
    steps: [
      {
        prompt: "Run `echo hi` with bash.",
        replies: [
          reply([text("Running."), toolUse("toolu_mock_bash_01", "bash", { command: "echo hi", description: "Print hi" })]),
          httpError(400, "invalid_request_error", "mock: rejected the follow-up"),
        ],
      },
      { prompt: "Try again.", resume: true, replies: [reply([text("hi")])] },
    ],
  },
  "edited-text-thinking": {
    about:
      'signed thinking + text turn and a plain text turn; both stored texts set to "" (opencode turns "" into " " when the message has signed reasoning); then continue',
    variant: "high",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Say two.", resume: true, replies: [reply([text("two")])] },
      {
        prompt: "Say three.",
        resume: true,
        replies: [reply([text("three")])],
        edit(db, { sessionId }) {
          const at = partsOf(rows(db, sessionId), "assistant", "text");
          for (const t of ["one", "two"]) updatePart(db, at.find((p) => p.text === t).id, (d) => (d.text = ""));
          return 'assistant texts "one" (next to signed reasoning) and "two" (no reasoning) set to ""';
        },
      },
    ],
  },
  "edited-misc": {
    about:
      "thinking turns and a tool turn; edits: reasoning signature moved to metadata.anthropic.redactedData, one assistant message's modelID changed, one completed tool compacted, one tool made error+interrupted with metadata.output; then continue",
    variant: "high",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      {
        prompt: "Run `echo hi` and `echo ho` with bash.",
        resume: true,
        replies: [
          reply([
            toolUse("toolu_mock_bash_01", "bash", { command: "echo hi", description: "Print hi" }),
            toolUse("toolu_mock_bash_02", "bash", { command: "echo ho", description: "Print ho" }),
          ]),
          reply([text("hi and ho.")]),
        ],
      },
      {
        prompt: "Say four.",
        resume: true,
        replies: [reply([text("four")])],
        edit(db, { sessionId }) {
          const msgs = rows(db, sessionId);
          const r = partsOf(msgs, "assistant", "reasoning");
          const done = [];
          updatePart(db, r.find((p) => p.text === "Thought one.").id, (d) => (d.metadata = { anthropic: { redactedData: "RedactedMockData==" } }));
          done.push('"Thought one.": metadata {anthropic:{redactedData}} instead of a signature');
          const a2 = msgs.find((m) => m.role === "assistant" && m.parts.some((p) => p.text === "Thought two."));
          const d = JSON.parse(db.prepare("SELECT data FROM message WHERE id = ?").get(a2.id).data);
          d.modelID = "claude-opus-4-1";
          db.prepare("UPDATE message SET data = ? WHERE id = ?").run(JSON.stringify(d), a2.id);
          done.push('assistant with "Thought two.": modelID claude-sonnet-4-5 -> claude-opus-4-1');
          const tools = partsOf(msgs, "assistant", "tool");
          updatePart(db, tools[0].id, (t) => (t.state.time.compacted = t.state.time.end));
          done.push("first bash tool: state.time.compacted set");
          updatePart(db, tools[1].id, (t) => {
            t.state = {
              status: "error",
              input: t.state.input,
              error: "Tool execution aborted",
              metadata: { interrupted: true, output: "ho (partial)" },
              time: t.state.time,
            };
          });
          done.push('second bash tool: status error "Tool execution aborted", metadata {interrupted:true, output:"ho (partial)"}');
          return done.join("; ");
        },
      },
    ],
  },
  "agents-md": {
    about: "AGENTS.md in the project; one turn, then continue (where do instructions go?)",
    project: { "AGENTS.md": "# Project rules\n\nAlways answer in one short sentence.\n" },
    steps: [
      { prompt: "What are the project rules?", replies: [reply([text("Answer in one short sentence.")])] },
      { prompt: "Thanks.", resume: true, replies: [reply([text("Welcome.")])] },
    ],
  },
  "edited-error": {
    about:
      "four text turns; stored assistant messages edited: turn 2 gets an APIError, turn 3 a MessageAbortedError (parts kept), turn 4 a MessageAbortedError with only step-start + reasoning; then continue",
    steps: [
      { prompt: "Say one.", replies: [reply([text("one")])] },
      { prompt: "Say two.", resume: true, replies: [reply([text("two")])] },
      { prompt: "Say three.", resume: true, replies: [reply([text("three")])] },
      { prompt: "Think about four.", resume: true, replies: [reply([thinking("Thought four.", SIG(4)), text("four")])] },
      {
        prompt: "Say five.",
        resume: true,
        replies: [reply([text("five")])],
        edit(db, { sessionId }) {
          const a = rows(db, sessionId).filter((m) => m.role === "assistant");
          const setErr = (m, error) => {
            const d = JSON.parse(db.prepare("SELECT data FROM message WHERE id = ?").get(m.id).data);
            d.error = error;
            db.prepare("UPDATE message SET data = ? WHERE id = ?").run(JSON.stringify(d), m.id);
          };
          setErr(a[1], { name: "APIError", data: { message: "mock: overloaded", statusCode: 529, isRetryable: true } });
          setErr(a[2], { name: "MessageAbortedError", data: { message: "The operation was aborted." } });
          setErr(a[3], { name: "MessageAbortedError", data: { message: "The operation was aborted." } });
          for (const p of a[3].parts) if (p.type === "text" || p.type === "step-finish") db.prepare("DELETE FROM part WHERE id = ?").run(p.id);
          return 'assistant "two": error APIError (parts kept); "three": error MessageAbortedError (parts kept); "four": MessageAbortedError, text and step-finish parts deleted (step-start + reasoning left)';
        },
      },
    ],
  },
  "file-part": {
    about: "first prompt with -f notes.txt (text file) and -f dot.png (image); then continue",
    project: {
      "notes.txt": "alpha\nbeta\ngamma\n",
      "dot.png": Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64"),
    },
    steps: [
      { prompt: "Summarise the attached files.", args: ["-f", "notes.txt", "-f", "dot.png"], replies: [reply([text("Three Greek letters and a dot.")])] },
      { prompt: "And the first letter?", resume: true, replies: [reply([text("alpha")])] },
    ],
  },
  "edited-text": {
    about: "tool turn + text turn; stored text parts edited: empty, whitespace, synthetic, ignored (user and assistant); then continue",
    steps: [
      {
        prompt: "Run `echo hi` with bash.",
        replies: [
          reply([text("Running."), toolUse("toolu_mock_bash_01", "bash", { command: "echo hi", description: "Print hi" })]),
          reply([text("Done: hi.")]),
        ],
      },
      { prompt: "Say two.", resume: true, replies: [reply([text("two")])] },
      {
        prompt: "Say three.",
        resume: true,
        replies: [reply([text("three")])],
        edit(db, { sessionId }) {
          const msgs = rows(db, sessionId);
          const done = [];
          const at = partsOf(msgs, "assistant", "text");
          const ut = partsOf(msgs, "user", "text");
          const set = (p, fn, what) => {
            updatePart(db, p.id, fn);
            done.push(what);
          };
          set(
            at.find((p) => p.text === "Running."),
            (d) => (d.text = ""),
            'assistant "Running." -> ""',
          );
          set(
            at.find((p) => p.text === "Done: hi."),
            (d) => (d.text = " \n\t "),
            'assistant "Done: hi." -> " \\n\\t "',
          );
          const two = at.find((p) => p.text === "two");
          set(two, (d) => (d.synthetic = true), 'assistant "two" -> synthetic:true');
          insertPartAfter(db, two.id, { type: "text", text: "IGNORED assistant text", ignored: true });
          done.push('inserted assistant text "IGNORED assistant text" ignored:true after "two"');
          const u1 = ut.find((p) => p.text.startsWith("Run `echo hi`"));
          insertPartAfter(db, u1.id, { type: "text", text: "SYNTHETIC user text", synthetic: true });
          insertPartAfter(db, u1.id + "0", { type: "text", text: "IGNORED user text", ignored: true });
          insertPartAfter(db, u1.id + "00", { type: "text", text: "" });
          insertPartAfter(db, u1.id + "000", { type: "text", text: "  \n " });
          done.push('inserted after the first user text: "SYNTHETIC user text" synthetic, "IGNORED user text" ignored, "" and "  \\n " plain');
          const u2 = ut.find((p) => p.text === "Say two.");
          set(u2, (d) => (d.text = ""), 'user "Say two." -> "" (its only text part)');
          return done.join("; ");
        },
      },
    ],
  },
  "edited-reasoning": {
    about:
      "three thinking turns (one with a tool); stored reasoning edited: signature metadata removed, text emptied (signature kept), text whitespace; then continue",
    variant: "high",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      {
        prompt: "Think, run `echo hi`, then say three.",
        resume: true,
        replies: [
          reply([thinking("Thought three.", SIG(3)), toolUse("toolu_mock_bash_01", "bash", { command: "echo hi", description: "Print hi" })]),
          reply([thinking("Thought four.", SIG(4)), text("three")]),
        ],
      },
      {
        prompt: "Say five.",
        resume: true,
        replies: [reply([text("five")])],
        edit(db, { sessionId }) {
          const msgs = rows(db, sessionId);
          const r = partsOf(msgs, "assistant", "reasoning");
          const by = (t) => r.find((p) => p.text === t);
          const done = [];
          updatePart(db, by("Thought one.").id, (d) => delete d.metadata);
          done.push('"Thought one.": metadata deleted (no signature)');
          updatePart(db, by("Thought two.").id, (d) => (d.text = ""));
          done.push('"Thought two.": text "" (signature kept)');
          updatePart(db, by("Thought three.").id, (d) => (d.text = " \n "));
          done.push('"Thought three." (before a tool_use): text " \\n " (signature kept)');
          return done.join("; ");
        },
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------------------------
// The mock Messages API.

function isMainLoop(body) {
  // The agent loop sends the tool list; side requests (title, summaries) do not.
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

function startMock(state) {
  const server = http.createServer(async (req, res) => {
    const { body, headers } = await readRequest(req);
    const isMessages = req.method === "POST" && /\/messages(\?|$)/.test(req.url);
    const main = isMessages && isMainLoop(body);
    const entry = { seq: state.seq++, step: state.step, main, method: req.method, path: req.url, headers, body };
    fs.appendFileSync(state.log, JSON.stringify(entry) + "\n");

    if (answeredCountTokens(req, res)) return;
    if (isMessages) {
      let r;
      if (main) r = state.replies.shift() ?? reply([text("(mock: no more scripted replies)")]);
      else r = reply([text("ok")]);
      if (r.error) {
        res.writeHead(r.error.status, { "content-type": "application/json", "request-id": "req_mock_err" });
        res.end(JSON.stringify({ type: "error", error: { type: r.error.type, message: r.error.message } }));
        return;
      }
      answerMessages(res, body, r);
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "mock: no such route" } }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// ---------------------------------------------------------------------------------------------------------------
// Driver.

function parseArgs(argv) {
  const a = { work: "/tmp/oc-capture", model: "anthropic/claude-sonnet-4-5", timeout: 120 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => argv[++i];
    if (k === "--client") a.client = v();
    else if (k === "--scenario") a.scenario = v();
    else if (k === "--out") a.out = v();
    else if (k === "--work") a.work = v();
    else if (k === "--model") a.model = v();
    else if (k === "--timeout") a.timeout = Number(v());
    else if (k === "--fixtures") a.fixtures = v();
    else if (k === "--list") a.list = true;
    else throw new Error("unknown argument " + k);
  }
  return a;
}

// The fixture form of a request body: everything but `tools` (names only) and a very long system prompt text.
export function trimRequest(body) {
  const out = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === "tools") out.tools = v.map((t) => t.name);
    else if (k === "system" && Array.isArray(v))
      out.system = v.map((b) =>
        b.type === "text" && b.text.length > 4000
          ? { ...b, text: b.text.slice(0, 1500) + `\n[... ${b.text.length - 3000} characters cut by capture-opencode-request.mjs ...]\n` + b.text.slice(-1500) }
          : b,
      );
    else out[k] = v;
  }
  return out;
}

// A small standalone copy of the store: copy db (+wal/shm), checkpoint, DELETE journal mode, VACUUM. With pageSize
// (fixtures: 1024) the copy is rebuilt with that page size: a fresh 1.18 store has ~60 tables and indexes, mostly
// empty, each taking at least one page, so 4096-byte pages make ~260 KB and 1024-byte pages ~70 KB. Content is equal.
function compactCopy(srcDb, dest, pageSize) {
  const tmp = dest + ".tmpdir";
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  for (const suf of ["", "-wal", "-shm"]) if (fs.existsSync(srcDb + suf)) fs.copyFileSync(srcDb + suf, path.join(tmp, "opencode.db" + suf));
  const db = openDb(path.join(tmp, "opencode.db"));
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.pragma("journal_mode = DELETE");
  if (pageSize) db.pragma(`page_size = ${pageSize}`);
  db.exec("VACUUM");
  db.close();
  fs.copyFileSync(path.join(tmp, "opencode.db"), dest);
  fs.rmSync(tmp, { recursive: true, force: true });
}

function dumpRows(dbFile, sessionId) {
  const db = openDb(dbFile, { readonly: true, fileMustExist: true });
  try {
    const session = db.prepare("SELECT * FROM session WHERE id = ?").get(sessionId);
    return { session, messages: rows(db, sessionId) };
  } finally {
    db.close();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.list) {
    for (const [name, s] of Object.entries(scenarios)) console.log(`${name.padEnd(18)} ${s.about}`);
    return;
  }
  if (!args.client || !args.scenario || !args.out) {
    console.error("usage: node scripts/capture-opencode-request.mjs --client <opencode binary> --scenario <name> --out <dir> [--fixtures <dir>]");
    process.exit(2);
  }
  const scenario = scenarios[args.scenario];
  if (!scenario) throw new Error(`unknown scenario ${args.scenario}; --list shows them`);

  const work = path.resolve(args.work);
  fs.rmSync(work, { recursive: true, force: true });
  const dirs = Object.fromEntries(["home", "data", "config", "state", "cache", "project"].map((d) => [d, path.join(work, d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const project = dirs.project;
  for (const [name, content] of Object.entries(scenario.project ?? {})) fs.writeFileSync(path.join(project, name), content);
  // A git repo with one commit, so the project id and the system prompt's environment block are stable.
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
  fs.writeFileSync(path.join(project, ".gitkeep"), "");
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: project, env: gitEnv });
  execFileSync("git", ["add", "-A"], { cwd: project, env: gitEnv });
  execFileSync("git", ["commit", "-q", "-m", "init"], { cwd: project, env: gitEnv });

  const out = path.resolve(args.out);
  fs.mkdirSync(out, { recursive: true });
  const log = path.join(out, "requests.jsonl");
  fs.rmSync(log, { force: true });

  const state = { seq: 0, step: 0, replies: [], log };
  const server = await startMock(state);
  const port = server.address().port;
  writeOpencodeConfig(dirs, { model: args.model, port });
  const env = opencodeEnv(dirs, { OPENCODE_DISABLE_CHANNEL_DB: "1" });
  const dbFile = path.join(dirs.data, "opencode", "opencode.db");

  let sessionId = null;
  const notes = [];
  const finalStep = scenario.captureStep ?? scenario.steps.length;
  try {
    for (const [i, step] of scenario.steps.entries()) {
      state.step = i + 1;
      state.replies = [...step.replies];
      if (step.edit) {
        if (!sessionId) throw new Error("edit before any session exists");
        const db = openDb(dbFile);
        try {
          notes.push(`before step ${i + 1}: ${db.transaction(() => step.edit(db, { sessionId }))()}`);
        } finally {
          db.close();
        }
        if (step.afterEdit) notes.push(`before step ${i + 1}: ${step.afterEdit(dbFile, { sessionId })}`);
      }
      if (i + 1 === finalStep && sessionId) {
        fs.writeFileSync(path.join(out, "rows-before-final.json"), JSON.stringify(dumpRows(dbFile, sessionId), null, 2) + "\n");
        compactCopy(dbFile, path.join(out, "opencode.before-final.db"));
      }
      const cli = ["run", "--pure", "--format", "json", "--model", args.model, "--auto", "--title", "mock session"];
      if (scenario.variant) cli.push("--variant", scenario.variant);
      if (step.resume) cli.push("--session", sessionId);
      // `opencode run` joins its positional words with " " and wraps any word that contains a space in double quotes
      // (a prompt passed as one shell argument is stored as "\"Say hello.\""), so the prompt goes in word by word.
      cli.push(...(step.args ?? []), "--", ...step.prompt.split(" "));
      const r = await runToFiles(args.client, cli, {
        cwd: project,
        env,
        timeoutMs: args.timeout * 1000,
        stdoutFile: path.join(out, `step-${i + 1}.stdout`),
        stderrFile: path.join(out, `step-${i + 1}.stderr`),
      });
      const db = openDb(dbFile, { readonly: true, fileMustExist: true });
      const sessions = db.prepare("SELECT id FROM session ORDER BY time_created").all();
      db.close();
      const sid = sessions.at(-1)?.id;
      console.error(`step ${i + 1}: exit ${r.code}${r.signal ? " " + r.signal : ""}, sessions ${sessions.length}, last ${sid}`);
      if (!sid) throw new Error(`step ${i + 1} left no session (see ${out}/step-${i + 1}.stdout/.stderr)`);
      if (sessionId && sid !== sessionId) notes.push(`step ${i + 1}: a new session ${sid} appeared (continued ${sessionId})`);
      sessionId ??= sid;
      if (state.replies.length) notes.push(`step ${i + 1}: ${state.replies.length} scripted repl(ies) not consumed`);
    }
  } finally {
    server.close();
  }

  fs.writeFileSync(path.join(out, "rows-after.json"), JSON.stringify(dumpRows(dbFile, sessionId), null, 2) + "\n");
  compactCopy(dbFile, path.join(out, "opencode.db"));
  const requests = fs
    .readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const cont = requests.find((q) => q.step === finalStep && q.main);
  if (!cont) throw new Error("no main-loop request in the final step");
  fs.writeFileSync(path.join(out, "request.json"), JSON.stringify(cont.body, null, 2) + "\n");
  fs.writeFileSync(path.join(out, "request.trimmed.json"), JSON.stringify(trimRequest(cont.body), null, 2) + "\n");
  fs.writeFileSync(
    path.join(out, "meta.json"),
    JSON.stringify({ scenario: args.scenario, about: scenario.about, sessionId, project, notes, requests: requests.length, continuingSeq: cont.seq }, null, 2) +
      "\n",
  );
  if (args.fixtures) {
    const fx = path.join(args.fixtures, args.scenario);
    fs.mkdirSync(fx, { recursive: true });
    compactCopy(dbFile, path.join(fx, "opencode.db"), 1024);
    fs.writeFileSync(path.join(fx, `${args.scenario}.request.json`), JSON.stringify(trimRequest(cont.body), null, 2) + "\n");
  }
  for (const n of notes) console.error("note: " + n);
  console.error(`session ${sessionId}; ${requests.length} requests logged; continuing request: seq ${cont.seq}, ${cont.body.messages.length} messages`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(e.stack || String(e));
    process.exit(1);
  });
}
