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
import { answerMessages, answeredCountTokens, readRequest, runToFiles } from "./clients/api/messages.mjs";
import { runRecoverStep, shellQuote } from "./clients/lib/recover.mjs";
import { bindReply, checkRequest, requestTokens, withoutThinkingFrom } from "./clients/api/messages-rules.mjs";
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
  ...prefixScenarios(),
};

// Prefix-bound thinking (issue 36): sessions on a model of recover's table (claude-opus-5-5) whose replies carry two
// thinking blocks each, over 3-4 turns (`--variant high`); the enforcing mock binds each block to its prefix. One
// history, damaged in different places; a recover step repairs it and the client must then be answered 200.
// Steps: client steps as above, plus `expect` (200: every main-loop request of the step answered 200 and no error
// event; 400: the step's first main-loop request answered 400 by rule `expectRule`), and recover steps
// `{ recover: true, withError?: false, trim?: true, args?: [...], before?(db, ctx) }`: `node <recover> session repair
// <id> [--error "<the last 400>"] [args] --yes --store <data dir>` (`trim`: `context trim <id> --error "<400>" --yes`).
// `contextLimit: "grow"`: the window is set, right before the damaged step, to the largest request the mock has seen
// + 20 tokens: every request so far fitted, and the session's next turn does not (the same as a fixed window the
// session just outgrew, without tuning a number to this client's system prompt and tool list).
function prefixScenarios() {
  const filler = reply([text("(mock: scripted reply; sent only to a request of this step that passes the rules)")]);
  const bash = (id, command) => toolUse(id, "bash", { command, description: `Run ${command}` });
  const turn1 = {
    prompt: "Think twice, then say one.",
    replies: [reply([thinking("First thought about one.", SIG(11)), thinking("Second thought about one.", SIG(12)), text("one")])],
  };
  const turn2 = (command = "echo hi", said = "It printed hi.") => ({
    prompt: `Think, run \`${command}\` with bash, then tell me the output.`,
    resume: true,
    replies: [
      reply([thinking("I should run it.", SIG(21)), text("Running it."), bash("toolu_mock_bash_01", command)]),
      reply([thinking("The output is in.", SIG(22)), thinking("That is all it printed.", SIG(23)), text(said)]),
    ],
  });
  const turn3 = {
    prompt: "Think twice, then say three.",
    resume: true,
    replies: [reply([thinking("First thought about three.", SIG(31)), thinking("Second thought about three.", SIG(32)), text("three")])],
  };
  const build = [turn1, turn2(), turn3];
  const textPart = (db, sessionId, role, pred) => partsOf(rows(db, sessionId), role, "text").find((p) => pred(p.text));
  const blankReply =
    (said, to) =>
    (db, { sessionId }) => {
      const p = textPart(db, sessionId, "assistant", (t) => t === said);
      updatePart(db, p.id, (d) => (d.text = to));
      return `assistant text "${said}" (part ${p.id}) set to ${JSON.stringify(to)} (the reasoning parts before it kept)`;
    };
  const blankOne = blankReply("one", " \n ");
  const blankThree = blankReply("three", " \n ");
  const blankPrompt = (db, { sessionId }) => {
    const p = textPart(db, sessionId, "user", (t) => t.startsWith("Think, run"));
    updatePart(db, p.id, (d) => (d.text = "  "));
    return `turn two's user prompt (part ${p.id}, "Think, run …") set to "  "`;
  };
  const say = (n, word) => ({ prompt: `Say ${word}.`, resume: true, expect: n, replies: [reply([text(word)])] });
  const rejected = (rule, edit) => ({ prompt: "Say four.", resume: true, expect: 400, expectRule: rule, replies: [filler], edit });
  const loop = (about, edit, { model = "anthropic/claude-opus-5-5", rule = "text_blank", steps = build } = {}) => ({
    about,
    enforce: true,
    model,
    variant: "high",
    steps: [...steps, rejected(rule, edit), { recover: true }, say(200, "five")],
  });
  const plain = (about, edit, { model = "anthropic/claude-opus-5-5", steps = build, args } = {}) => ({
    about,
    enforce: true,
    model,
    variant: "high",
    steps: [...steps, { recover: true, withError: false, before: edit, args }, say(200, "five")],
  });
  return {
    "prefix-blank-text": loop(
      "opus-5-5, 7 thinking blocks over 3 turns; turn one's text made whitespace; continue → 400; recover --error; continue → 200",
      blankOne,
    ),
    "prefix-blank-text-plain": plain("as prefix-blank-text, but a plain repair before the client sends the damaged history", blankOne),
    "prefix-blank-prompt": loop("opus-5-5; turn two's user prompt made whitespace; continue → 400; recover --error; continue → 200", blankPrompt),
    "prefix-blank-prompt-plain": plain("as prefix-blank-prompt, but a plain repair before the client sends the damaged history", blankPrompt),
    "prefix-overflow": {
      about:
        "opus-5-5; turn two's bash prints a 24 KB file; the window is then set just above the largest request so far; continue → 400 prompt is too long; recover context trim --error; continue → 200",
      enforce: true,
      model: "anthropic/claude-opus-5-5",
      variant: "high",
      project: { "big.txt": bigFile() },
      // opencode compacts by itself on `prompt is too long` (a summary request, then the turn again on the summary:
      // every earlier message and thinking block out of the request); with that off the session stops at the 400,
      // as a user who keeps the history whole has it. prefix-overflow-autocompact is the default.
      config: { compaction: { auto: false } },
      steps: [
        turn1,
        turn2("cat big.txt", "It is a long numbered list."),
        turn3,
        { ...rejected("prompt_too_long"), contextLimit: "grow" },
        { recover: true, trim: true },
        say(200, "five"),
      ],
    },
    "prefix-overflow-autocompact": {
      about: "as prefix-overflow with opencode's default automatic compaction (control only: the client summarises the session itself on the 400)",
      enforce: true,
      model: "anthropic/claude-opus-5-5",
      variant: "high",
      project: { "big.txt": bigFile() },
      steps: [turn1, turn2("cat big.txt", "It is a long numbered list."), turn3, { ...rejected("prompt_too_long"), contextLimit: "grow" }, say(200, "five")],
    },
    "prefix-interrupted": {
      about:
        "opus-5-5; turn two's bash call interrupted as a hard kill leaves it (tool running, no step-finish, its follow-up reply gone); the client continues twice (turns three and four, 2 thinking blocks each); plain repair; continue → 200",
      enforce: true,
      model: "anthropic/claude-opus-5-5",
      variant: "high",
      steps: [
        turn1,
        turn2(),
        { ...turn3, edit: interruptTool("toolu_mock_bash_01") },
        {
          prompt: "Think twice, then say four.",
          resume: true,
          replies: [reply([thinking("First thought about four.", SIG(41)), thinking("Second thought about four.", SIG(42)), text("four")])],
        },
        { recover: true, withError: false },
        say(200, "five"),
      ],
    },
    "prefix-tail-blank-text": loop(
      "opus-5-5; the last reply's text (turn three, after its 2 thinking blocks) made whitespace; continue → 400; recover --error; continue → 200 with all 7",
      blankThree,
    ),
    "prefix-tail-interrupted": plain(
      "opus-5-5; a 4th turn's bash call interrupted (hard kill: tool running, no follow-up); plain repair with --include-live (the last turn is minutes old); continue → 200 with all 8",
      interruptTool("toolu_mock_bash_02"),
      {
        args: ["--include-live"],
        steps: [
          ...build,
          {
            prompt: "Think, run `echo ho` with bash, then tell me the output.",
            resume: true,
            replies: [
              reply([thinking("I should run echo ho.", SIG(41)), bash("toolu_mock_bash_02", "echo ho")]),
              reply([thinking("The output was ho.", SIG(42)), text("It printed ho.")]),
            ],
          },
        ],
      },
    ),
    "prefix-blank-text-sonnet45": loop("as prefix-blank-text on claude-sonnet-4-5 (no prefix binding): thinking kept", blankOne, {
      model: "anthropic/claude-sonnet-4-5",
    }),
    "prefix-blank-prompt-sonnet45": loop("as prefix-blank-prompt on claude-sonnet-4-5 (no prefix binding): thinking kept", blankPrompt, {
      model: "anthropic/claude-sonnet-4-5",
    }),
  };
}

/** 400 numbered lines, 24 KB: a file whose `cat` is the oversized tool output of prefix-overflow. */
function bigFile() {
  const lines = [];
  for (let i = 1; i <= 400; i++) lines.push(`${String(i).padStart(4, "0")} ${"lorem ipsum dolor sit amet ".repeat(2).trim()}`);
  return lines.join("\n") + "\n";
}

/**
 * A hard kill while the bash call `callID` ran, as opencode leaves it (the `interrupted-tool` scenario): the tool part
 * `running`, the step's step-finish gone, its message without time.completed and finish, and the replies after it in
 * the same turn (the follow-up step) never written.
 */
function interruptTool(callID) {
  return (db, { sessionId }) => {
    const msgs = rows(db, sessionId);
    const at = msgs.find((m) => m.role === "assistant" && m.parts.some((p) => p.type === "tool" && p.callID === callID));
    if (!at) throw new Error(`no tool call ${callID}`);
    const later = msgs.filter(
      (m) => m.role === "assistant" && m.parentID === at.parentID && (m.time_created > at.time_created || (m.time_created === at.time_created && m.id > at.id)),
    );
    for (const m of later) {
      db.prepare("DELETE FROM part WHERE message_id = ?").run(m.id);
      db.prepare("DELETE FROM message WHERE id = ?").run(m.id);
    }
    for (const p of at.parts) {
      if (p.type === "step-finish") db.prepare("DELETE FROM part WHERE id = ?").run(p.id);
      if (p.type === "tool" && p.callID === callID)
        updatePart(
          db,
          p.id,
          (d) => (d.state = { status: "running", input: d.state.input, title: d.state.title ?? "", metadata: {}, time: { start: d.state.time.start } }),
        );
    }
    const m = JSON.parse(db.prepare("SELECT data FROM message WHERE id = ?").get(at.id).data);
    delete m.time.completed;
    delete m.finish;
    db.prepare("UPDATE message SET data = ? WHERE id = ?").run(JSON.stringify(m), at.id);
    return `hard kill while ${callID} ran: in ${at.id} the bash part -> running, step-finish deleted, time.completed and finish removed; the follow-up message(s) ${later.map((m) => m.id).join(", ") || "(none)"} deleted`;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The mock Messages API.

function isMainLoop(body) {
  // The agent loop sends the tool list; side requests (title, summaries) do not.
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

// With the enforcing mock (`state.enforce`), every POST /v1/messages is judged by the Messages API rules of
// mock-anthropic-rules.mjs (the window, empty thinking, blank text, modified latest thinking, and on a prefix-bound
// model the prefix binding) and answered 400 with the API's error body when it breaks one; every reply it streams
// binds its thinking blocks. Each logged request carries the mock's `answer`.
function startMock(state, args = {}) {
  const server = http.createServer(async (req, res) => {
    const { body, headers } = await readRequest(req);
    const isMessages = req.method === "POST" && /\/messages(\?|$)/.test(req.url);
    const main = isMessages && isMainLoop(body);
    const entry = { seq: state.seq++, step: state.step, main, method: req.method, path: req.url, headers, body };
    let broken = null;
    let dropped = null;
    if (state.enforce && isMessages) {
      broken = checkRequest(body, state.issued, { bound: state.bound, headers, scope: state.bindScope, contextLimit: state.contextLimit });
      if (broken?.dropped) {
        dropped = broken.dropped;
        broken = null;
      }
      entry.answer = broken
        ? { status: 400, rule: broken.rule, message: broken.message, ...(broken.why ? { why: broken.why } : {}) }
        : { status: 200, ...(dropped ? { droppedThinkingFrom: dropped.at, why: dropped.why } : {}) };
    }
    fs.appendFileSync(state.log, JSON.stringify(entry) + "\n");

    if (answeredCountTokens(req, res)) return;
    if (isMessages) {
      if (broken) {
        state.errors.push({ seq: entry.seq, step: state.step, main, ...broken });
        state.answers.push({ seq: entry.seq, step: state.step, main, status: 400, rule: broken.rule, message: broken.message });
        const requestId = `req_mock${String(entry.seq).padStart(4, "0")}${"e".repeat(20)}`;
        res.writeHead(400, { "content-type": "application/json", "request-id": requestId });
        res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: broken.message }, request_id: requestId }));
        return;
      }
      let r;
      if (main) r = state.replies.shift() ?? reply([text("(mock: no more scripted replies)")]);
      else r = reply([text("ok")]);
      if (r.error) {
        state.answers.push({ seq: entry.seq, step: state.step, main, status: r.error.status, scripted: true });
        res.writeHead(r.error.status, { "content-type": "application/json", "request-id": "req_mock_err" });
        res.end(JSON.stringify({ type: "error", error: { type: r.error.type, message: r.error.message } }));
        return;
      }
      for (const b of r.blocks) if (b.type === "thinking") state.issued.set(b.signature, b.thinking);
      // drop_block: the failing block and every later thinking block are left out before the model sees them.
      if (state.enforce) bindReply(dropped ? withoutThinkingFrom(body, dropped.at) : body, r.blocks, state.bound, state.bindScope);
      state.answers.push({ seq: entry.seq, step: state.step, main, status: 200, ...(dropped ? { droppedThinkingFrom: dropped.at } : {}) });
      // The enforcing mock reports the prompt size it counts for its window (requestTokens) as `input_tokens`
      // instead of mock-messages-api's fixed 100, so the usage opencode stores is that of the request it sent (what
      // recover's context trim calibrates its estimate against).
      if (state.enforce && !args.fixedUsage) {
        const write = res.write.bind(res);
        const tokens = requestTokens(body);
        res.write = (chunk, ...rest) => write(typeof chunk === "string" ? chunk.replace('"input_tokens":100,', `"input_tokens":${tokens},`) : chunk, ...rest);
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
  const a = { work: "/tmp/oc-capture", timeout: 120 };
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
    else if (k === "--enforce") a.enforce = true;
    else if (k === "--recover") a.recover = v();
    else if (k === "--skip-recover") a.skipRecover = true;
    else if (k === "--recover-wait") a.recoverWait = Number(v());
    else if (k === "--context-limit") a.contextLimit = Number(v());
    else if (k === "--bind-scope") a.bindScope = v();
    else if (k === "--no-drop-block") a.noDropBlock = true;
    else if (k === "--fixed-usage") a.fixedUsage = true;
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

// The session as stored, one line per message and part (for the before/after diff of a recover step).
function storeLines(dbFile, sessionId) {
  const out = new Map();
  for (const m of dumpRows(dbFile, sessionId).messages) {
    const flags = [m.error ? `error ${m.error.name}` : "", m.finish ? `finish ${m.finish}` : "", m.time?.completed ? "" : "not completed"].filter(Boolean);
    out.set(m.id, `${m.id} ${m.role}${m.modelID ? ` ${m.modelID}` : ""}${flags.length ? ` (${flags.join(", ")})` : ""}`);
    for (const p of m.parts) {
      const sig = p.metadata?.anthropic?.signature;
      const what =
        p.type === "reasoning"
          ? `reasoning ${JSON.stringify(short(p.text))}${sig ? ` sig ${sigName(sig)}` : " (no signature)"}`
          : p.type === "text"
            ? `text ${JSON.stringify(short(p.text))}${p.synthetic ? " synthetic" : ""}${p.ignored ? " ignored" : ""}`
            : p.type === "tool"
              ? `tool ${p.tool} ${p.callID} ${p.state?.status}${p.state?.time?.compacted ? " compacted" : ""} ${JSON.stringify(short(p.state?.output ?? p.state?.error ?? ""))}`
              : p.type;
      out.set(p.id, `  ${p.id} of ${m.id}: ${what}`);
    }
  }
  return out;
}
function storeDiff(before, after) {
  return {
    removed: [...before].filter(([id]) => !after.has(id)).map(([, d]) => d.trim()),
    added: [...after].filter(([id]) => !before.has(id)).map(([, d]) => d.trim()),
    changed: [...after].filter(([id, d]) => before.has(id) && before.get(id) !== d).map(([id, d]) => `${before.get(id).trim()}  ->  ${d.trim()}`),
  };
}
/** The stored signatures of the session's reasoning parts, in message and part order. */
function storedSignatures(dbFile, sessionId) {
  return dumpRows(dbFile, sessionId)
    .messages.flatMap((m) => m.parts)
    .filter((p) => p.type === "reasoning" && p.metadata?.anthropic?.signature)
    .map((p) => p.metadata.anthropic.signature);
}

// EsMock11Signature… → "11" (the mock's signatures; anything else is shortened).
const sigName = (sig) => /^EsMock(\d+)Signature/.exec(sig ?? "")?.[1] ?? short(sig);
const short = (t) => (typeof t === "string" && t.length > 80 ? t.slice(0, 77) + "..." : t);
// What a request sent for its thinking blocks and its latest assistant message (for the verdict).
function requestSummary(body) {
  if (!body) return null;
  const msgs = body.messages ?? [];
  const thinkingBlocks = [];
  let latest = -1;
  for (const [n, msg] of msgs.entries()) {
    if (msg.role === "assistant") latest = n;
    if (!Array.isArray(msg.content)) continue;
    for (const [m, b] of msg.content.entries())
      if (b.type === "thinking" || b.type === "redacted_thinking")
        thinkingBlocks.push({ at: `messages.${n}.content.${m}`, type: b.type, signature: sigName(b.signature ?? b.data), thinking: b.thinking });
  }
  const brief = (b) =>
    b.type === "thinking"
      ? `thinking ${sigName(b.signature)}`
      : b.type === "text"
        ? `text ${JSON.stringify(short(b.text))}`
        : b.type === "tool_use"
          ? `tool_use ${b.id}`
          : b.type === "tool_result"
            ? `tool_result ${b.tool_use_id}${b.is_error ? " is_error" : ""} ${JSON.stringify(short(typeof b.content === "string" ? b.content : JSON.stringify(b.content)))}`
            : b.type;
  return {
    model: body.model,
    thinking: body.thinking,
    ...(body.output_config ? { output_config: body.output_config } : {}),
    max_tokens: body.max_tokens,
    tokens: requestTokens(body),
    messages: msgs.length,
    roles: msgs.map((m) => m.role[0]).join(""),
    thinkingSignatures: thinkingBlocks.map((t) => t.signature),
    thinkingBlocks,
    content: msgs.map((m, n) => `${n} ${m.role}: ${(Array.isArray(m.content) ? m.content.map(brief) : [JSON.stringify(short(m.content))]).join(" | ")}`),
    latestAssistant: latest < 0 ? null : `messages.${latest}`,
  };
}

// What recover's `--dry-run --json` plan says: how many changes, by rule, how many thinking blocks it drops as bound
// to what it changes (`droppedThinking`), and its notices (the --error explanation).

/** The `--format json` events of a client run (one JSON object a line; anything else skipped). */
function eventsOf(stdout) {
  return stdout
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.list) {
    for (const [name, s] of Object.entries(scenarios)) console.log(`${name.padEnd(28)} ${s.about}`);
    return;
  }
  if (!args.client || !args.scenario || !args.out) {
    console.error(
      "usage: node scripts/capture-opencode-request.mjs --client <opencode binary> --scenario <name> --out <dir> [--fixtures <dir>] [--enforce] [--recover <bin/recover>] [--skip-recover] [--recover-wait <s>] [--context-limit <tokens>]",
    );
    process.exit(2);
  }
  const scenario = scenarios[args.scenario];
  if (!scenario) throw new Error(`unknown scenario ${args.scenario}; --list shows them`);
  args.model ??= scenario.model ?? "anthropic/claude-sonnet-4-5";
  const loop = scenario.steps.some((s) => s.recover);
  const recoverBin = path.resolve(args.recover ?? path.join(HERE, "..", "bin", "recover"));
  if (loop && !args.skipRecover) {
    const bundle = path.join(path.dirname(recoverBin), "..", "dist", "main.cjs");
    if (!fs.existsSync(recoverBin)) throw new Error(`--recover: no ${recoverBin}`);
    if (!fs.existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` in ${path.resolve(path.dirname(recoverBin), "..")} first`);
  }

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
  for (const f of fs.readdirSync(out))
    if (/^(step-\d+\.|rows-step-|opencode\.step-)/.test(f) || f === "verdict.json") fs.rmSync(path.join(out, f), { force: true });

  const enforce = Boolean(args.enforce || scenario.enforce);
  const state = {
    seq: 0,
    step: 0,
    replies: [],
    log,
    enforce,
    issued: new Map(),
    bound: new Map(),
    bindScope: args.bindScope ?? "all",
    contextLimit: args.contextLimit ?? (typeof scenario.contextLimit === "number" ? scenario.contextLimit : 0),
    errors: [],
    answers: [],
  };
  const server = await startMock(state, args);
  const port = server.address().port;
  // --no-drop-block: opencode's own opt-out of the `drop_block` it sends for Claude >= 5.1 (model option
  // `thinking.blockBinding: false`), so that a block the binding rejects is a 400, as on the API's default.
  const modelId = args.model.split("/").slice(1).join("/");
  const models = args.noDropBlock ? { [modelId]: { options: { thinking: { blockBinding: false } } } } : undefined;
  writeOpencodeConfig(dirs, { model: args.model, port, models, extra: scenario.config });
  const env = opencodeEnv(dirs, { OPENCODE_DISABLE_CHANNEL_DB: "1" });
  const storeDir = path.join(dirs.data, "opencode");
  const dbFile = path.join(storeDir, "opencode.db");
  // recover sees what a user's shell would: the same HOME and XDG dirs (its backups go to <work>/state/recover).
  const recoverEnv = {
    PATH: process.env.PATH,
    HOME: dirs.home,
    XDG_DATA_HOME: dirs.data,
    XDG_STATE_HOME: dirs.state,
    LANG: "C.UTF-8",
    TZ: "UTC",
    TERM: "dumb",
  };
  const readLog = () =>
    fs
      .readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));

  let sessionId = null;
  const notes = [];
  const stepLog = [];
  let fixture = null;
  const finalStep = scenario.captureStep ?? scenario.steps.length;
  const rowsTo = (name) => {
    if (enforce && sessionId) fs.writeFileSync(path.join(out, name), JSON.stringify(dumpRows(dbFile, sessionId), null, 2) + "\n");
  };
  try {
    for (const [i, step] of scenario.steps.entries()) {
      const n = i + 1;
      state.step = n;
      if (step.recover) {
        if (step.before) {
          const db = openDb(dbFile);
          try {
            notes.push(`before step ${n} (recover): ${db.transaction(() => step.before(db, { sessionId }))()}`);
          } finally {
            db.close();
          }
        }
        // `withError: false`: a plain repair (no --error), e.g. before the client ever sent the damaged history.
        const err = step.withError === false ? undefined : state.errors.at(-1);
        if (!err && step.withError !== false) throw new Error(`step ${n}: recover step, but the mock has answered no 400 so far`);
        const verb = step.trim ? ["context", "trim"] : ["session", "repair"];
        const recoverArgs = [...verb, sessionId, ...(err ? ["--error", err.message] : []), ...(step.args ?? []), "--yes"];
        const cmd = [recoverBin, ...recoverArgs, "--store", storeDir];
        const shown = ["node", ...cmd].map(shellQuote).join(" ");
        fs.writeFileSync(path.join(out, `step-${n}.command`), shown + "\n");
        if (args.skipRecover) {
          notes.push(`step ${n}: recover NOT run (--skip-recover, control run); it would have been: ${shown}`);
          stepLog.push({ step: n, kind: "recover", skipped: true, command: shown });
          console.error(`step ${n}: recover skipped (--skip-recover)`);
          continue;
        }
        if (args.recoverWait) await new Promise((r) => setTimeout(r, args.recoverWait * 1000));
        // The store exactly as recover finds it (the fixture of this loop).
        rowsTo(`rows-step-${n}.before.json`);
        const beforeDb = path.join(out, `opencode.step-${n}.before.db`);
        compactCopy(dbFile, beforeDb);
        const beforeLines = storeLines(dbFile, sessionId);
        const thinkingBefore = storedSignatures(dbFile, sessionId);
        const ranAt = Date.now();
        const { planned, plan, r } = await runRecoverStep(cmd, { n, out, cwd: project, env: recoverEnv, timeoutSeconds: args.timeout });
        rowsTo(`rows-step-${n}.after.json`);
        const storeChanges = storeDiff(beforeLines, storeLines(dbFile, sessionId));
        fixture = { step: n, beforeDb, recoverArgs, error: err?.message ?? null, ranAt, thinkingBefore, plan };
        stepLog.push({
          step: n,
          kind: "recover",
          command: shown,
          error: err?.message,
          exit: r.code,
          signal: r.signal,
          planExit: planned.code,
          plan,
          thinkingBefore: thinkingBefore.map(sigName),
          thinkingAfter: storedSignatures(dbFile, sessionId).map(sigName),
          storeChanges,
          stdout: r.stdout,
          stderr: r.stderr || undefined,
        });
        console.error(
          `step ${n}: recover exit ${r.code}${r.signal ? " " + r.signal : ""}; plan: ${plan ? `${plan.changes} change(s), droppedThinking ${plan.droppedThinking}, rules ${JSON.stringify(plan.rules)}` : "(no JSON plan)"}`,
        );
        continue;
      }
      state.replies = [...step.replies];
      if (step.contextLimit === "grow") {
        const largest = Math.max(
          ...readLog()
            .filter((q) => q.method === "POST" && q.body?.messages)
            .map((q) => requestTokens(q.body)),
        );
        state.contextLimit = largest + 20;
        notes.push(`before step ${n}: window set to ${state.contextLimit} tokens (the largest request so far, ${largest}, + 20)`);
      }
      if (step.edit) {
        if (!sessionId) throw new Error("edit before any session exists");
        const db = openDb(dbFile);
        try {
          notes.push(`before step ${n}: ${db.transaction(() => step.edit(db, { sessionId }))()}`);
        } finally {
          db.close();
        }
        if (step.afterEdit) notes.push(`before step ${n}: ${step.afterEdit(dbFile, { sessionId })}`);
      }
      if (n === finalStep && sessionId) {
        fs.writeFileSync(path.join(out, "rows-before-final.json"), JSON.stringify(dumpRows(dbFile, sessionId), null, 2) + "\n");
        compactCopy(dbFile, path.join(out, "opencode.before-final.db"));
      }
      rowsTo(`rows-step-${n}.before.json`);
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
        stdoutFile: path.join(out, `step-${n}.stdout`),
        stderrFile: path.join(out, `step-${n}.stderr`),
      });
      const db = openDb(dbFile, { readonly: true, fileMustExist: true });
      const sessions = db.prepare("SELECT id FROM session ORDER BY time_created").all();
      db.close();
      const sid = sessions.at(-1)?.id;
      const answers = state.answers.filter((a) => a.step === n && a.main);
      const errorEvent = eventsOf(r.stdout).find((e) => e.type === "error");
      console.error(
        `step ${n}: exit ${r.code}${r.signal ? " " + r.signal : ""}, sessions ${sessions.length}, last ${sid}${enforce ? `, mock answered ${answers.map((a) => a.status + (a.rule ? " " + a.rule : "") + (a.droppedThinkingFrom ? ` dropped-from ${a.droppedThinkingFrom}` : "")).join(",") || "nothing"}` : ""}`,
      );
      if (!sid) throw new Error(`step ${n} left no session (see ${out}/step-${n}.stdout/.stderr)`);
      if (sessionId && sid !== sessionId) notes.push(`step ${n}: a new session ${sid} appeared (continued ${sessionId})`);
      sessionId ??= sid;
      rowsTo(`rows-step-${n}.after.json`);
      // With the enforcing mock, a step that expects nothing in particular (building the session) must be answered
      // 200 throughout.
      const expect = step.expect ?? (enforce ? 200 : undefined);
      if (expect !== undefined) {
        const ok =
          expect === 400
            ? answers[0]?.status === 400 && (step.expectRule === undefined || answers[0].rule === step.expectRule)
            : // 200 throughout, and nothing the binding had to drop (opencode sends `drop_block` for Claude >= 5.1:
              // a block the binding rejects is then dropped silently instead of a 400).
              answers.length > 0 && answers.every((a) => a.status === 200 && !a.droppedThinkingFrom) && !errorEvent && state.replies.length === 0;
        stepLog.push({
          step: n,
          kind: "client",
          prompt: step.prompt,
          expect,
          ok,
          exit: r.code,
          answers,
          sideRequests: state.answers.filter((a) => a.step === n && !a.main).map((a) => a.status + (a.rule ? " " + a.rule : "")),
          errorEvent: errorEvent && (errorEvent.error?.data?.message ?? errorEvent.error?.name ?? errorEvent),
          stderr: r.stderr ? r.stderr.slice(-2000) : undefined,
        });
      }
      if (enforce) {
        const first = readLog().find((q) => q.step === n && q.main);
        if (first) fs.writeFileSync(path.join(out, `step-${n}.request.trimmed.json`), JSON.stringify(trimRequest(first.body), null, 2) + "\n");
      }
      if (state.replies.length && step.expect !== 400) notes.push(`step ${n}: ${state.replies.length} scripted repl(ies) not consumed`);
    }
  } finally {
    server.close();
  }

  fs.writeFileSync(path.join(out, "rows-after.json"), JSON.stringify(dumpRows(dbFile, sessionId), null, 2) + "\n");
  compactCopy(dbFile, path.join(out, "opencode.db"));
  const requests = readLog();
  const cont = requests.find((q) => q.step === finalStep && q.main);
  if (!cont) throw new Error("no main-loop request in the final step");
  fs.writeFileSync(path.join(out, "request.json"), JSON.stringify(cont.body, null, 2) + "\n");
  fs.writeFileSync(path.join(out, "request.trimmed.json"), JSON.stringify(trimRequest(cont.body), null, 2) + "\n");
  fs.writeFileSync(
    path.join(out, "meta.json"),
    JSON.stringify(
      {
        scenario: args.scenario,
        about: scenario.about,
        model: args.model,
        sessionId,
        project,
        notes,
        requests: requests.length,
        continuingSeq: cont.seq,
        enforce,
      },
      null,
      2,
    ) + "\n",
  );
  for (const n of notes) console.error("note: " + n);
  console.error(`session ${sessionId}; ${requests.length} requests logged; continuing request: seq ${cont.seq}, ${cont.body.messages.length} messages`);

  let verdict = null;
  if (loop) {
    const reasons = [];
    for (const s of stepLog) {
      if (s.kind === "client" && !s.ok)
        reasons.push(
          `step ${s.step}: expected ${s.expect}, mock answered ${s.answers.map((a) => a.status + (a.rule ? " " + a.rule : "") + (a.droppedThinkingFrom ? ` (drop_block dropped thinking from ${a.droppedThinkingFrom})` : "")).join(", ") || "nothing"}${s.errorEvent ? ` (client error: ${short(String(s.errorEvent))})` : ""}`,
        );
      if (s.kind === "recover" && !s.skipped && s.exit !== 0) reasons.push(`step ${s.step}: recover exited ${s.exit}`);
    }
    const rejected = stepLog.find((s) => s.kind === "client" && s.expect === 400);
    const warnings = [];
    if (rejected?.answers.some((a) => a.status === 200))
      warnings.push(`step ${rejected.step}: after the 400 the client got a 200 in the same run (answers ${rejected.answers.map((a) => a.status).join(",")})`);
    const firstOf = (step) => requests.find((q) => q.step === step && q.main)?.body;
    verdict = {
      scenario: args.scenario,
      about: scenario.about,
      model: args.model,
      dropBlock: !args.noDropBlock,
      pass: reasons.length === 0,
      reasons,
      warnings,
      sessionId,
      skipRecover: Boolean(args.skipRecover),
      contextLimit: state.contextLimit || undefined,
      steps: stepLog,
      requestsByStep: Object.fromEntries(
        scenario.steps.map((_, i) => [
          i + 1,
          requests
            .filter((q) => q.step === i + 1 && q.method === "POST")
            .map(
              (q) =>
                `${q.main ? "main" : "side"} ${q.answer?.status ?? ""}${q.answer?.rule ? " " + q.answer.rule : ""}${q.answer?.droppedThinkingFrom ? ` drop_block dropped thinking from ${q.answer.droppedThinkingFrom} (${q.answer.why})` : ""}`,
            ),
        ]),
      ),
      rejectedRequest: rejected ? requestSummary(firstOf(rejected.step)) : undefined,
      finalRequest: requestSummary(cont.body),
      finalAnswers: state.answers.filter((a) => a.step === finalStep && a.main),
    };
    fs.writeFileSync(path.join(out, "verdict.json"), JSON.stringify(verdict, null, 2) + "\n");
    for (const w of warnings) console.error("warning: " + w);
    if (args.skipRecover)
      console.error(`CONTROL ${args.scenario} (recover not run): ${verdict.pass ? "every step as expected WITHOUT recover" : reasons.join("; ")}`);
    else console.error(`${verdict.pass ? "PASS" : "FAIL"} ${args.scenario}${reasons.length ? ": " + reasons.join("; ") : ""}`);
    if (!verdict.pass && !args.skipRecover) process.exitCode = 1;
  }

  if (args.fixtures && loop) {
    // A repair loop's fixture: the store as the client left it right before recover ran, and what the real loop
    // showed (expected.json). Only from a loop that passed: its kept thinking is what the binding mock accepted.
    if (args.skipRecover || !fixture) console.error("fixtures: none written (control run, or no recover step ran)");
    else if (!verdict.pass) console.error("fixtures: none written (the loop failed)");
    else {
      const fx = path.join(args.fixtures, args.scenario);
      fs.rmSync(fx, { recursive: true, force: true });
      fs.mkdirSync(fx, { recursive: true });
      compactCopy(fixture.beforeDb, path.join(fx, "opencode.db"), 1024);
      const kept = verdict.finalRequest.thinkingBlocks.map((t) => cont.body.messages[Number(t.at.split(".")[1])].content[Number(t.at.split(".")[3])]);
      const keptSigs = kept.map((b) => b.signature ?? b.data);
      const rejected = stepLog.find((s) => s.kind === "client" && s.expect === 400);
      const expected = {
        scenario: args.scenario,
        about: scenario.about,
        client: "opencode-ai@1.18.33",
        sessionId,
        model: args.model,
        dropBlock: !args.noDropBlock,
        // recover's command (`--store <a copy of this folder>` appended), and the clock it ran at (its 10-minute
        // live window and 60 s write guard are judged against it).
        recover: fixture.recoverArgs,
        ranAt: fixture.ranAt,
        error: fixture.error,
        rejected: rejected ? { step: rejected.step, answers: rejected.answers.map((a) => `${a.status}${a.rule ? " " + a.rule : ""}`) } : null,
        plan: { changes: fixture.plan?.changes, rules: fixture.plan?.rules, droppedThinking: fixture.plan?.droppedThinking },
        // The signed reasoning parts in the store before recover, and the ones the real client sent after it (the
        // binding mock answered that request 200): exactly these may stay.
        thinkingBefore: fixture.thinkingBefore,
        kept: keptSigs,
        dropped: fixture.thinkingBefore.filter((s) => !keptSigs.includes(s)),
      };
      fs.writeFileSync(path.join(fx, "expected.json"), JSON.stringify(expected, null, 2) + "\n");
      console.error(`fixtures: ${fx}/opencode.db (${fs.statSync(path.join(fx, "opencode.db")).size} bytes), expected.json`);
    }
  } else if (args.fixtures) {
    const fx = path.join(args.fixtures, args.scenario);
    fs.mkdirSync(fx, { recursive: true });
    compactCopy(dbFile, path.join(fx, "opencode.db"), 1024);
    fs.writeFileSync(path.join(fx, `${args.scenario}.request.json`), JSON.stringify(trimRequest(cont.body), null, 2) + "\n");
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(e.stack || String(e));
    process.exit(1);
  });
}
