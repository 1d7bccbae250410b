#!/usr/bin/env node
// Capture how the real Codex CLI writes a session (rollout JSONL) and what it sends to the OpenAI Responses API when
// it resumes one, including sessions damaged between the steps.
//
// Runs Codex offline (`codex exec`) against a loopback mock of the Responses API (scripts/mock-responses-api.mjs), one
// scenario at a time: the first step(s) build a session (`codex exec ... "prompt"`), an optional edit changes the
// rollout file (the client is not running then), and a last step resumes it once (`codex exec resume <uuid> "prompt"`).
// Every request is logged; the first `POST /v1/responses` of the last step is "the resume request". A step may be
// SIGKILLed (the client and everything it started) some time after the mock answered a given request.
//
// Install the client (no global install, no network besides the npm registry):
//
//   npm install --prefix /tmp/codex-client @openai/codex@0.169.0
//   # bin/codex.js is a small Node launcher; the native binary comes with the optional dependency
//   # @openai/codex-linux-x64 (an npm alias of @openai/codex@0.169.0-linux-x64), which npm installs on linux-x64:
//   # node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex. If npm skipped it:
//   #   npm install --prefix /tmp/codex-client @openai/codex-linux-x64@npm:@openai/codex@0.169.0-linux-x64
//   HOME=/tmp/x CODEX_HOME=/tmp/x/.codex /tmp/codex-client/node_modules/.bin/codex --version   # codex-cli 0.169.0
//
// Run:
//
//   node scripts/capture-codex-rollout.mjs --client /tmp/codex-client/node_modules/.bin/codex \
//        --scenario tool --out /tmp/codex-out/tool --fixtures fixtures/codex-0.169
//   node scripts/capture-codex-rollout.mjs --scenario all --fixtures fixtures/codex-0.169   # every scenario, in turn
//   node scripts/capture-codex-rollout.mjs --list                                          # the scenarios
//
// Options: --client <path> (default /tmp/codex-client/node_modules/.bin/codex), --scenario <name|all>,
// --out <dir> (default /tmp/codex-out/<scenario>; with --scenario all: <dir>/<scenario>), --work <dir> (scratch root, wiped per scenario; default
// /tmp/codex-capture, kept fixed so the cwd stored in the session is the same on every run), --model <slug> (default
// gpt-5.5, a model the 0.169.0 binary has bundled metadata for), --timeout <s> per client run (default 120),
// --fixtures <dir> (also write the fixture files, see below).
//
// Output in --out: requests.jsonl (every request: seq, tag = step number, method, path, headers without credentials,
// body, how the mock answered), step-<n>.stdout/.stderr/.exit.json, rollout-after-step-<n>.jsonl,
// rollout.before-resume.jsonl (after the edit, exactly what the resume step reads), rollout.after.jsonl,
// resume-request.json (the full body), resume-request.trimmed.json, meta.json (session id, rollout path, edit note,
// exit status of every step, what each request was answered).
//
// Fixtures (--fixtures <dir>): <scenario>.jsonl (= rollout.before-resume.jsonl), <scenario>.resume-request.json
// (trimmed: `tools` reduced to names, text over 4000 characters cut in the middle with
// `[... N characters cut by capture-codex-rollout.mjs ...]`), <scenario>.after.jsonl (the rollout after the resume
// step) and <scenario>.resume.stdout.txt + <scenario>.resume.stderr.txt (what the client printed on resume; stderr is
// written only when the resume exited non-zero). `.after.jsonl` is left out where it adds nothing (scenarios with
// keepAfter: false; it is always in --out). Scenarios whose rollout holds a huge tool output set `cutFixture`:
// then the huge strings in the .jsonl / .after.jsonl fixtures are cut in the middle the same way (documented in the
// fixtures README); the uncut files stay in --out.
//
// The mock answers the resume request only after `apiCheck` (below), which rejects what the real API rejects, with
// the API's texts: an empty call_id (`Invalid 'input[N].call_id': empty string.`), two items with the same id
// (`Duplicate item found with id <id>. …`), an output without its call (`No tool call found for function call output
// with call_id <id>.`), a call without its output (`No tool output found for function call <id>.`). Scenarios
// `bad-reasoning` and `overflow` are answered with their 400 unconditionally (the mock cannot verify encrypted
// content or count a context window).
//
// Isolation: HOME=<work>/home, CODEX_HOME=<work>/home/.codex (Codex writes there even for --version),
// cwd <work>/project (not a git repo: --skip-git-repo-check). config.toml: model_provider "mock" ->
// [model_providers.mock] base_url http://127.0.0.1:<port>/v1, wire_api "responses", env_key MOCK_API_KEY,
// request_max_retries = stream_max_retries = 0; [analytics] enabled = false; [features] plugins, remote_plugin,
// plugin_sharing, apps, tool_suggest, in_app_updates, daemon_auto_start = false (else it reaches for remote hosts on
// start); check_for_update_on_startup = false. Every run: --skip-git-repo-check
// --dangerously-bypass-approvals-and-sandbox, stdin /dev/null. Codex warns on stderr that it will not create its
// PATH helper aliases under a temporary dir; harmless here. Plain Node ESM, no dependencies.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startResponsesMock, message, reasoning, functionCall, reply, httpError } from "./clients/api/responses.mjs";
import { apiCheck } from "./clients/api/responses-rules.mjs";
export { apiCheck };

const _HERE = path.dirname(fileURLToPath(import.meta.url));

// Answer `r` unless the request fails apiCheck.
const checked = (r) => (body) => apiCheck(body) ?? r;

// ---------------------------------------------------------------------------------------------------------------
// Rollout edits (between steps; the file as an array of lines without their "\n"; return a note for the README).

const parse = (l) => {
  try {
    return JSON.parse(l);
  } catch {
    return null;
  }
};
const isItem = (l, type) => parse(l)?.type === "response_item" && parse(l)?.payload?.type === type;
function findLine(lines, type, pred = () => true, from = "first") {
  const idx = lines.map((l, i) => (isItem(l, type) && pred(parse(l).payload) ? i : -1)).filter((i) => i >= 0);
  if (!idx.length) throw new Error(`no response_item ${type} line`);
  return from === "last" ? idx[idx.length - 1] : idx[0];
}
function editFile(file, fn) {
  const raw = fs.readFileSync(file, "utf8");
  const endsNl = raw.endsWith("\n");
  const lines = (endsNl ? raw.slice(0, -1) : raw).split("\n");
  const { lines: out, note, noFinalNewline } = fn(lines);
  fs.writeFileSync(file, out.join("\n") + (noFinalNewline ? "" : "\n"));
  return note;
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios. Each step runs the client once: { prompt, resume?: true, replies: [reply | (body) => reply],
// kill?: { afterRequest: n (1-based within the step), afterMs } , edit?(file, ctx) -> note }. `edit` runs before its
// step. The last step is the captured resume step.

const ENC = (n) => `gAAAAABmockEncryptedReasoning${n}` + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo".repeat(3) + "==";
const shell = (callId, cmd, extra = {}) => functionCall(callId, "exec_command", { cmd, ...extra });
const toolTurn = (prompt = "Run `echo hi` and tell me the output.") => ({
  prompt,
  replies: [
    reply([reasoning("I should run echo hi.", ENC(1)), message("Running it."), shell("call_mock_echo_01", "echo hi", { yield_time_ms: 2000 })]),
    reply([reasoning("The command printed hi.", ENC(2)), message("The output is hi.")]),
  ],
});
const resumeStep = (r = reply([message("You're welcome.")]), prompt = "Thanks.") => ({ prompt, resume: true, replies: [checked(r)] });

const scenarios = {
  plain: {
    about: "two plain text turns (the second a resume)",
    steps: [
      { prompt: "Say hello.", replies: [reply([message("Hello! How can I help?")])] },
      { prompt: "Say it again.", resume: true, replies: [checked(reply([message("Hello again.")]))] },
    ],
  },
  tool: {
    about: "reasoning(encrypted) + text + exec_command `echo hi`; output stored; reasoning + text; then resume",
    keepAfter: false,
    steps: [toolTurn(), resumeStep()],
  },
  "killed-mid-call": {
    about: "reasoning + exec_command `sleep 60`; the client (and its children) SIGKILLed 3 s after the call was answered; then resume",
    steps: [
      {
        prompt: "Run `sleep 60`.",
        replies: [reply([reasoning("I will sleep.", ENC(1)), shell("call_mock_sleep_01", "sleep 60", { yield_time_ms: 30000 })]), reply([message("Slept.")])],
        kill: { afterRequest: 1, afterMs: 3000 },
      },
      resumeStep(reply([message("The command was interrupted.")]), "What happened?"),
    ],
  },
  "torn-tail": {
    about: "`tool`, then the last line of the rollout cut in the middle (no final newline); then resume",
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const last = lines[lines.length - 1];
            const keep = Math.floor(last.length / 2);
            const t = parse(last);
            lines[lines.length - 1] = last.slice(0, keep);
            return {
              lines,
              noFinalNewline: true,
              note: `last line (${t?.type}${t?.payload?.type ? "/" + t.payload.type : ""}, ${Buffer.byteLength(last)} bytes) cut to its first ${keep} characters, no final newline`,
            };
          }),
      },
    ],
  },
  "nul-line": {
    about: "`tool`, then the function_call_output line overwritten with NUL bytes of the same byte length (newline kept); then resume",
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const i = findLine(lines, "function_call_output");
            const n = Buffer.byteLength(lines[i]);
            lines[i] = "\0".repeat(n);
            return { lines, note: `line ${i + 1} (response_item function_call_output, ${n} bytes) replaced by ${n} NUL bytes` };
          }),
      },
    ],
  },
  "duplicate-output": {
    about: "`tool`, then the function_call_output line duplicated (the copy right after it); resume; mock answers 400 Duplicate item",
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const i = findLine(lines, "function_call_output");
            lines.splice(i + 1, 0, lines[i]);
            return { lines, note: `line ${i + 1} (response_item function_call_output) duplicated as line ${i + 2}` };
          }),
      },
    ],
  },
  "bad-reasoning": {
    about: "`tool`, then resume; the mock answers the resume 400 invalid_encrypted_content (as the API does when a stored reasoning item no longer verifies)",
    steps: [
      toolTurn(),
      {
        prompt: "Thanks.",
        resume: true,
        replies: [
          (body) => {
            const rs = body.input.find((it) => it.type === "reasoning");
            const enc = rs?.encrypted_content ?? "gAAAA";
            return httpError(400, `The encrypted content ${enc.slice(0, 4)}...${enc.slice(-4)} could not be verified.`, { code: "invalid_encrypted_content" });
          },
        ],
      },
    ],
  },
  "empty-call-id": {
    about: `\`tool\`, then call_id of the function_call and of its function_call_output set to "" (response_item lines only); resume; mock answers 400 Invalid 'input[N].call_id': empty string.`,
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const done = [];
            for (const type of ["function_call", "function_call_output"]) {
              const i = findLine(lines, type);
              const o = parse(lines[i]);
              const was = o.payload.call_id;
              o.payload.call_id = "";
              lines[i] = JSON.stringify(o);
              done.push(`line ${i + 1} (${type}) call_id ${JSON.stringify(was)} -> ""`);
            }
            return { lines, note: done.join("; ") + " (line re-serialized with JSON.stringify; other lines untouched)" };
          }),
      },
    ],
  },
  "orphan-output": {
    about: "`tool`, then the response_item function_call line removed, so its output answers no call; resume; mock answers 400 No tool call found",
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const i = findLine(lines, "function_call");
            const id = parse(lines[i]).payload.call_id;
            lines.splice(i, 1);
            return { lines, note: `line ${i + 1} (response_item function_call, call_id ${id}) deleted` };
          }),
      },
    ],
  },
  "huge-output": {
    about: "exec_command `seq -w 1 33334` (200004 bytes of output, max_output_tokens 100000); text; then resume: how is the output stored and cut?",
    cutFixture: true,
    keepAfter: false,
    steps: [
      {
        prompt: "Print the numbers 1 to 33334.",
        replies: [
          reply([
            reasoning("I will print them with seq.", ENC(1)),
            shell("call_mock_seq_01", "seq -w 1 33334", { yield_time_ms: 10000, max_output_tokens: 100000 }),
          ]),
          reply([message("Printed 33334 numbers.")]),
        ],
      },
      resumeStep(),
    ],
  },
  "huge-output-stored": {
    about:
      "as huge-output, then the stored function_call_output's output replaced by the whole 200004-character output of `seq -w 1 33334` (what an uncut store would hold); then resume: how does Codex cut it in the request?",
    cutFixture: true,
    keepAfter: false,
    steps: [
      {
        prompt: "Print the numbers 1 to 33334.",
        replies: [
          reply([
            reasoning("I will print them with seq.", ENC(1)),
            shell("call_mock_seq_01", "seq -w 1 33334", { yield_time_ms: 10000, max_output_tokens: 100000 }),
          ]),
          reply([message("Printed 33334 numbers.")]),
        ],
      },
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const i = findLine(lines, "function_call_output");
            const o = parse(lines[i]);
            const was = o.payload.output.length;
            o.payload.output = Array.from({ length: 33334 }, (_, k) => String(k + 1).padStart(5, "0") + "\n").join("");
            lines[i] = JSON.stringify(o);
            return {
              lines,
              note: `line ${i + 1} (function_call_output): output (${was} characters as stored by the client) replaced by the full seq -w 1 33334 output (${o.payload.output.length} characters, "00001\\n" … "33334\\n")`,
            };
          }),
      },
    ],
  },
  "torn-output": {
    about:
      "`tool`, then the file cut in the middle of the function_call_output line (that line torn, every later line gone; no final newline), as if the writer died mid-line; then resume",
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const i = findLine(lines, "function_call_output");
            const n = lines.length;
            const keep = Math.floor(lines[i].length / 2);
            const out = lines.slice(0, i);
            out.push(lines[i].slice(0, keep));
            return {
              lines: out,
              noFinalNewline: true,
              note: `line ${i + 1} (response_item function_call_output, ${lines[i].length} characters) cut to its first ${keep}; lines ${i + 2}-${n} deleted; no final newline`,
            };
          }),
      },
    ],
  },
  "sessions-only": {
    about: "`plain` first turn, then everything in CODEX_HOME except config.toml and sessions/ deleted (the SQLite state/history files etc.); then resume",
    keepAfter: false,
    steps: [
      { prompt: "Say hello.", replies: [reply([message("Hello! How can I help?")])] },
      {
        prompt: "Say it again.",
        resume: true,
        replies: [checked(reply([message("Hello again.")]))],
        edit: (_file, { codexHome }) => {
          const gone = fs.readdirSync(codexHome).filter((e) => e !== "config.toml" && e !== "sessions");
          for (const e of gone) fs.rmSync(path.join(codexHome, e), { recursive: true, force: true });
          return `deleted from CODEX_HOME: ${gone.sort().join(", ")} (rollout untouched)`;
        },
      },
    ],
  },
  overflow: {
    about: "`plain` first turn, then resume; the mock answers 400 context_length_exceeded",
    steps: [
      { prompt: "Say hello.", replies: [reply([message("Hello! How can I help?")])] },
      {
        prompt: "Say it again.",
        resume: true,
        replies: [
          httpError(400, "Your input exceeds the context window of this model. Please adjust your input and try again.", {
            param: "input",
            code: "context_length_exceeded",
          }),
        ],
      },
    ],
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Driver.

function parseArgs(argv) {
  const a = { client: "/tmp/codex-client/node_modules/.bin/codex", work: "/tmp/codex-capture", model: "gpt-5.5", timeout: 120 };
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

export function configToml(port, model) {
  return `model = "${model}"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:${port}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false
tool_suggest = false
in_app_updates = false
daemon_auto_start = false
`;
}

// All descendants of pid (from /proc/<pid>/task/*/children), deepest last.
function descendants(pid) {
  const out = [];
  const walk = (p) => {
    const kids = [];
    try {
      for (const t of fs.readdirSync(`/proc/${p}/task`))
        kids.push(...fs.readFileSync(`/proc/${p}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {}
    for (const k of kids) {
      out.push(k);
      walk(k);
    }
  };
  walk(pid);
  return out;
}
const cmdline = (pid) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return "?";
  }
};

export function runClient(client, args, { cwd, env, timeoutMs, onSpawn }) {
  return new Promise((resolve) => {
    const child = spawn(client, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    const killTree = (why) => {
      const kids = descendants(child.pid);
      const killed = [{ pid: child.pid, cmd: cmdline(child.pid) }, ...kids.map((pid) => ({ pid, cmd: cmdline(pid) }))];
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {}
      for (const k of kids)
        try {
          process.kill(k, "SIGKILL");
        } catch {}
      return { why, killed };
    };
    let killInfo = null;
    const timer = setTimeout(() => (killInfo = killTree("timeout")), timeoutMs);
    onSpawn?.({ kill: (why) => (killInfo = killTree(why)) });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), killInfo });
    });
  });
}

function findRollouts(codexHome) {
  const dir = path.join(codexHome, "sessions");
  const out = [];
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^rollout-.*\.jsonl$/.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

// Cut a long string in the middle, keeping `keep` characters at each end.
const CUT = (n) => `[... ${n} characters cut by capture-codex-rollout.mjs ...]`;
// A truncation marker the client itself wrote into the middle of the text (e.g. "…40001 tokens truncated…") is kept,
// with `around` characters either side, so the fixture still shows where and how the client cut.
const CLIENT_MARK = /…\d+ [a-z]+ truncated…/g;
export function cutMiddle(s, max = 4000, keep = 1500, around = 200) {
  if (typeof s !== "string" || s.length <= max) return s;
  const keepRanges = [[0, keep]];
  for (const m of s.matchAll(CLIENT_MARK)) keepRanges.push([Math.max(0, m.index - around), Math.min(s.length, m.index + m[0].length + around)]);
  keepRanges.push([s.length - keep, s.length]);
  keepRanges.sort((x, y) => x[0] - y[0]);
  const merged = [];
  for (const r of keepRanges) {
    const prev = merged[merged.length - 1];
    if (prev && r[0] <= prev[1]) prev[1] = Math.max(prev[1], r[1]);
    else merged.push([...r]);
  }
  let out = "";
  let pos = 0;
  for (const [a, b] of merged) {
    if (a > pos) out += CUT(a - pos);
    out += s.slice(a, b);
    pos = b;
  }
  return out;
}
// Deep-cut every string longer than max (used for requests and, with cutFixture, rollout lines).
function cutDeep(v, max, keep) {
  if (typeof v === "string") return cutMiddle(v, max, keep);
  if (Array.isArray(v)) return v.map((x) => cutDeep(x, max, keep));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutDeep(x, max, keep)]));
  return v;
}
// The fixture form of a request body: `tools` reduced to names, every text over 4000 characters cut in the middle.
export function trimRequest(body, max = 4000) {
  const out = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === "tools") out.tools = v.map((t) => t.name ?? t.type);
    else out[k] = cutDeep(v, max, 1500);
  }
  return out;
}
// Fixture form of a rollout with huge strings: lines that parse are re-serialized with strings over 30000 characters
// cut (keeping 3000 at each end and any client truncation marker; the ~21 k base_instructions of session_meta stay
// whole); lines that do not parse are kept byte for byte.
function cutRollout(raw) {
  return raw
    .split("\n")
    .map((l) => {
      if (l.length <= 30000) return l;
      const o = parse(l);
      return o ? JSON.stringify(cutDeep(o, 30000, 3000)) : l;
    })
    .join("\n");
}

async function runScenario(a, name) {
  const sc = scenarios[name];
  if (!sc) throw new Error(`no scenario ${name} (see --list)`);
  const out = a.out && a.scenario !== "all" ? a.out : path.join(a.out ?? "/tmp/codex-out", name);
  fs.rmSync(a.work, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const home = path.join(a.work, "home");
  const codexHome = path.join(home, ".codex");
  const project = path.join(a.work, "project");
  fs.mkdirSync(codexHome, { recursive: true });
  fs.mkdirSync(project, { recursive: true });

  const log = path.join(out, "requests.jsonl");
  const state = { log, tag: null, replies: [], served: 0, onServe: null };
  state.next = (body) => {
    const r = state.replies.shift();
    state.served++;
    const res = typeof r === "function" ? r(body) : r;
    setImmediate(() => state.onServe?.(state.served));
    return res;
  };
  const mock = await startResponsesMock(state);
  fs.writeFileSync(path.join(codexHome, "config.toml"), configToml(mock.port, a.model));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    CODEX_HOME: codexHome,
    MOCK_API_KEY: "sk-mock-not-a-key",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
  };
  const meta = { scenario: name, about: sc.about, client: a.client, model: a.model, steps: [] };
  let sessionId = null;
  let rollout = null;
  const common = ["--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"];
  try {
    for (const [si, step] of sc.steps.entries()) {
      const n = si + 1;
      const last = si === sc.steps.length - 1;
      const sm = { step: n, prompt: step.prompt, resume: !!step.resume };
      if (step.edit) {
        sm.edit = step.edit(rollout, { sessionId, codexHome });
        meta.edit = sm.edit;
      }
      if (last) fs.copyFileSync(rollout, path.join(out, "rollout.before-resume.jsonl"));
      state.tag = n;
      state.replies = [...step.replies];
      state.served = 0;
      state.onServe = null;
      const args = step.resume ? ["exec", "resume", ...common, sessionId, step.prompt] : ["exec", ...common, step.prompt];
      sm.args = args;
      const t0 = Date.now();
      const r = await runClient(a.client, args, {
        cwd: project,
        env,
        timeoutMs: a.timeout * 1000,
        onSpawn: ({ kill }) => {
          if (step.kill)
            state.onServe = (k) => {
              if (k !== step.kill.afterRequest) return;
              setTimeout(() => {
                sm.killedAfterMs = Date.now() - t0;
                kill("scenario kill");
              }, step.kill.afterMs);
            };
        },
      });
      sm.ms = Date.now() - t0;
      sm.exit = { code: r.code, signal: r.signal };
      if (r.killInfo) sm.kill = r.killInfo;
      sm.requestsAnswered = state.served;
      sm.unusedReplies = state.replies.length;
      fs.writeFileSync(path.join(out, `step-${n}.stdout`), r.stdout);
      fs.writeFileSync(path.join(out, `step-${n}.stderr`), r.stderr);
      fs.writeFileSync(path.join(out, `step-${n}.exit.json`), JSON.stringify(sm.exit) + "\n");
      const files = findRollouts(codexHome);
      sm.rollouts = files.map((f) => path.relative(codexHome, f));
      if (!rollout) {
        rollout = files[0];
        const first = rollout && parse(fs.readFileSync(rollout, "utf8").split("\n")[0]);
        sessionId = first?.payload?.id;
        meta.sessionId = sessionId;
        meta.rollout = rollout && path.relative(codexHome, rollout);
      }
      if (rollout && fs.existsSync(rollout)) fs.copyFileSync(rollout, path.join(out, `rollout-after-step-${n}.jsonl`));
      meta.steps.push(sm);
      console.error(`[${name}] step ${n}: exit ${r.code ?? r.signal} in ${sm.ms} ms, ${state.served} request(s)${sm.edit ? "; edit: " + sm.edit : ""}`);
      if (!rollout) throw new Error("no rollout file after step " + n);
    }
  } finally {
    await mock.close();
  }
  fs.copyFileSync(rollout, path.join(out, "rollout.after.jsonl"));
  const reqs = fs
    .readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const lastStep = sc.steps.length;
  const resumeReq = reqs.find((r) => r.tag === lastStep && r.method === "POST" && /\/responses$/.test(r.path.split("?")[0]));
  meta.requests = reqs.map((r) => ({ seq: r.seq, step: r.tag, method: r.method, path: r.path, answer: r.answer }));
  if (resumeReq) {
    fs.writeFileSync(path.join(out, "resume-request.json"), JSON.stringify(resumeReq.body, null, 2) + "\n");
    fs.writeFileSync(path.join(out, "resume-request.trimmed.json"), JSON.stringify(trimRequest(resumeReq.body), null, 2) + "\n");
    meta.resumeAnswer = resumeReq.answer;
  } else meta.resumeAnswer = "no resume request was made";
  fs.writeFileSync(path.join(out, "meta.json"), JSON.stringify(meta, null, 2) + "\n");

  if (a.fixtures) {
    fs.mkdirSync(a.fixtures, { recursive: true });
    const fx = (suffix) => path.join(a.fixtures, name + suffix);
    const before = fs.readFileSync(path.join(out, "rollout.before-resume.jsonl"), "utf8");
    const after = fs.readFileSync(path.join(out, "rollout.after.jsonl"), "utf8");
    fs.writeFileSync(fx(".jsonl"), sc.cutFixture ? cutRollout(before) : before);
    if (after !== before && sc.keepAfter !== false) fs.writeFileSync(fx(".after.jsonl"), sc.cutFixture ? cutRollout(after) : after);
    else fs.rmSync(fx(".after.jsonl"), { force: true });
    if (resumeReq) fs.writeFileSync(fx(".resume-request.json"), JSON.stringify(trimRequest(resumeReq.body), null, 2) + "\n");
    const ls = meta.steps[meta.steps.length - 1];
    fs.writeFileSync(fx(".resume.stdout.txt"), fs.readFileSync(path.join(out, `step-${lastStep}.stdout`)));
    if (ls.exit.code !== 0) fs.writeFileSync(fx(".resume.stderr.txt"), fs.readFileSync(path.join(out, `step-${lastStep}.stderr`)));
    else fs.rmSync(fx(".resume.stderr.txt"), { force: true });
  }
  return meta;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.list) {
    for (const [k, s] of Object.entries(scenarios)) console.log(`${k.padEnd(18)} ${s.about}`);
    return;
  }
  if (!a.scenario) throw new Error("--scenario <name|all> or --list");
  const names = a.scenario === "all" ? Object.keys(scenarios) : [a.scenario];
  for (const n of names) {
    const m = await runScenario(a, n);
    const ls = m.steps[m.steps.length - 1];
    console.log(`${n}: resume exit ${ls.exit.code ?? ls.exit.signal}, answer ${JSON.stringify(m.resumeAnswer)}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
