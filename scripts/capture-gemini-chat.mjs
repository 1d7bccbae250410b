#!/usr/bin/env node
// Capture how the real Gemini CLI writes a chat session (JSONL chat file) and what it sends to the Gemini API when it
// resumes one, including sessions damaged between the steps.
//
// Runs Gemini CLI offline (`gemini --yolo -p "prompt"`) against a loopback mock of the Gemini API
// (scripts/mock-gemini-api.mjs), one scenario at a time: the first step(s) build a session, an optional edit changes
// the chat file (the client is not running then), and a last step resumes it once (`gemini --resume <uuid> -p ...`).
// Every request is logged; the first `:streamGenerateContent` request of the last step is "the resume request".
// A step may be SIGKILLed (the client and everything it started) some time after the mock answered a given request.
//
// Install the client (no global install, no network besides the npm registry):
//
//   npm install --prefix /tmp/gemini-client @google/gemini-cli@0.61.0
//   # engines: node >=20; runs on Node 20.20.2 as is. bundle/gemini.js is the whole client (esbuild bundle + chunks).
//   # npm warns that @github/keytar and node-pty install scripts were not run; neither is needed here (the API key
//   # comes from the env, shell commands run without a pty in -p mode).
//   HOME=/tmp/x GEMINI_CLI_NO_RELAUNCH=1 node /tmp/gemini-client/node_modules/@google/gemini-cli/bundle/gemini.js --version   # 0.61.0
//   # only for scenario legacy-json: an older client that still writes one .json file per session
//   npm install --prefix /tmp/gemini-old @google/gemini-cli@0.30.0    # dist/index.js (+ @google/gemini-cli-core)
//
// Run:
//
//   node scripts/capture-gemini-chat.mjs --scenario tool --out /tmp/gemini-out/tool --fixtures fixtures/gemini-0.61
//   node scripts/capture-gemini-chat.mjs --scenario all --out /tmp/gemini-out --fixtures fixtures/gemini-0.61
//   node scripts/capture-gemini-chat.mjs --list                                   # the scenarios
//
// Options: --client <gemini.js> (default /tmp/gemini-client/node_modules/@google/gemini-cli/bundle/gemini.js),
// --legacy-client <index.js> (default /tmp/gemini-old/node_modules/@google/gemini-cli/dist/index.js, used by the steps
// marked client: "legacy"), --node <binary> (default: the node running this script), --scenario <name|all>, --out <dir> (default
// /tmp/gemini-out/<scenario>; with --scenario all: <dir>/<scenario>), --work <dir> (scratch root, wiped per scenario;
// default /tmp/gemini-capture, kept fixed so the paths in the chat and the system prompt are the same on every run),
// --model <name> (default gemini-2.5-pro), --timeout <s> per client run (default 120), --fixtures <dir> (also write
// the fixture files, see below).
//
// Output in --out: requests.jsonl (every request: seq, tag = step number, method, path, headers without the key, body,
// how the mock answered), step-<n>.stdout/.stderr/.exit.json, chat-after-step-<n>.jsonl, chat.before-resume.jsonl
// (after the edit: exactly what the resume step reads), chat.after.jsonl, resume-request.json (full body),
// resume-request.trimmed.json, meta.json (session id, chat file name, edit note, exit status of every step, how each
// request was answered), home-files.txt (every file the client left under HOME).
//
// "The chat file" is the biggest session-*.json(l) under ~/.gemini/tmp/*/chats: every resume first starts a fresh
// recording in session-<now, to the minute>-<first 8 of the id>.jsonl (a metadata line + `$set.messages` holding the
// session context) and only then switches to the resumed file; in another minute that leaves a ~900-byte stub file
// next to the session, in the same minute those two lines land in the resumed file itself (both happen; meta.json lists
// every chat file with its size).
//
// Fixtures (--fixtures <dir>): <scenario>.jsonl (= chat.before-resume.jsonl; <scenario>.json for legacy-json),
// <scenario>.resume-request.json
// (trimmed: `tools` reduced to function names, every string over 4000 characters cut in the middle keeping 1500 at
// each end, with `[... N characters cut by capture-gemini-chat.mjs ...]`), <scenario>.after.jsonl (the chat file
// after the resume step, when the resume step changed it) and <scenario>.resume.stderr.txt (when the resume exited
// non-zero). Also <dir>/capture-meta.json: per scenario the chat file's real name, the edit note, exits, answers.
//
// The mock answers the resume request after `checkContents` (mock-gemini-api.mjs): it rejects with the API's texts
// an empty `parts`, a function response turn that follows no call turn, a call turn whose next turn does not carry
// exactly as many functionResponse parts. `overflow` is answered with its 400 unconditionally.
//
// Isolation: HOME=<work>/home (the client writes ~/.gemini even for --version), cwd <work>/project (not a git repo).
// ~/.gemini/settings.json: security.auth.selectedType "gemini-api-key", model.name pinned, usage statistics off.
// Env: GEMINI_API_KEY=dummy, GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:<port>, GEMINI_CLI_NO_RELAUNCH=1 (no child
// re-launch with a bigger heap), GEMINI_CLI_TRUST_WORKSPACE=true, NO_COLOR=1, stdin /dev/null. Every run: --yolo.
// Plain Node ESM, no dependencies.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  startGeminiMock,
  checkContents,
  text,
  thought,
  functionCall,
  reply,
  httpError,
  fakeSignature,
  promptTokens,
  ERR_OVERFLOW,
} from "./clients/api/gemini.mjs";

const _HERE = path.dirname(fileURLToPath(import.meta.url));
const checked = (r) => (body) => checkContents(body) ?? r;

// ---------------------------------------------------------------------------------------------------------------
// Chat-file edits (between steps; the file as an array of lines without their "\n"; return a note for the README).

const parse = (l) => {
  try {
    return JSON.parse(l);
  } catch {
    return null;
  }
};
function editFile(file, fn) {
  const raw = fs.readFileSync(file, "utf8");
  const endsNl = raw.endsWith("\n");
  const lines = (endsNl ? raw.slice(0, -1) : raw).split("\n");
  const { lines: out, note, noFinalNewline } = fn(lines);
  fs.writeFileSync(file, out.join("\n") + (noFinalNewline || out.length === 0 ? "" : "\n"));
  return note;
}
// Indices of lines that are message records (have id + type) matching pred.
function msgLines(lines, pred = () => true) {
  return lines.map((l, i) => ({ i, r: parse(l) })).filter(({ r }) => r && typeof r.id === "string" && r.type && pred(r));
}
const hasFnCall = (r) => Array.isArray(r.content) && r.content.some((p) => p?.functionCall);
const hasFnResp = (r) => Array.isArray(r.content) && r.content.some((p) => p?.functionResponse);
// The effective (last-wins) copy of each message id, as line indices.
function _lastCopies(lines, pred) {
  const last = new Map();
  for (const { i, r } of msgLines(lines)) last.set(r.id, i);
  return [...last.values()].filter((i) => pred(parse(lines[i])));
}
// Rewrite every copy of the records matching pred (also inside a `$set.messages` array).
function rewriteRecords(lines, pred, fn) {
  let n = 0;
  const out = lines.map((l) => {
    const r = parse(l);
    if (!r) return l;
    if (typeof r.id === "string" && r.type && pred(r)) {
      n++;
      return JSON.stringify(fn(r));
    }
    if (r.$set && Array.isArray(r.$set.messages) && r.$set.messages.some(pred)) {
      n++;
      r.$set.messages = r.$set.messages.map((m) => (pred(m) ? fn(m) : m));
      return JSON.stringify(r);
    }
    return l;
  });
  return { out, n };
}
function dropRecords(lines, pred) {
  let n = 0;
  const out = [];
  for (const l of lines) {
    const r = parse(l);
    if (r && typeof r.id === "string" && r.type && pred(r)) {
      n++;
      continue;
    }
    if (r?.$set && Array.isArray(r.$set.messages) && r.$set.messages.some(pred)) {
      n++;
      r.$set.messages = r.$set.messages.filter((m) => !pred(m));
      out.push(JSON.stringify(r));
      continue;
    }
    out.push(l);
  }
  return { out, n };
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios. Each step runs the client once: { prompt, resume?: true, replies: [reply | (body) => reply],
// kill?: { afterRequest: n (1-based, streamGenerateContent requests within the step), afterMs },
// edit?(file, ctx) -> note }. `edit` runs before its step. The last step is the captured resume step.

const SIG = (n) => fakeSignature(`sig-${n}`);
const toolTurn = (prompt = "Run `echo hi` and tell me the output.") => ({
  prompt,
  replies: [
    reply([
      thought("**Running the command**\n\nThe user wants the output of `echo hi`; I will run it with the shell tool.", SIG(1)),
      text("Running it."),
      functionCall("run_shell_command", { command: "echo hi", description: "Print hi." }, SIG(2)),
    ]),
    reply([thought("**Reporting**\n\nThe command printed hi.", SIG(3)), text("The command printed: hi")]),
  ],
});
const plainTurns = () => [
  { prompt: "Say hello.", replies: [reply([thought("**Greeting**\n\nA plain hello.", SIG(1)), text("Hello! How can I help?")])] },
  { prompt: "What is 2+2?", resume: true, replies: [checked(reply([text("2 + 2 = 4.")]))] },
];
const resumeStep = (r = reply([text("You're welcome.")]), prompt = "Thanks.") => ({ prompt, resume: true, replies: [checked(r)] });

// The separate `user` record the client writes for a tool result (not the `<gemini id>_response` record that a resume
// derives from toolCalls[].result and writes into `$set.messages`).
const dropUserResponse = (file) =>
  editFile(file, (lines) => {
    const { out, n } = dropRecords(lines, (r) => r.type === "user" && hasFnResp(r) && !r.id.endsWith("_response"));
    if (!n) throw new Error("no user functionResponse record");
    return { lines: out, note: `the separate \`user\` record with the functionResponse dropped from every line holding it (${n} line(s))` };
  });
const dropToolResult = (file) =>
  editFile(file, (lines) => {
    const { out, n } = rewriteRecords(
      lines,
      (r) => r.type === "gemini" && Array.isArray(r.toolCalls) && r.toolCalls.some((t) => "result" in t),
      (r) => ({ ...r, toolCalls: r.toolCalls.map(({ result, ...t }) => t) }),
    );
    if (!n) throw new Error("no toolCalls[].result");
    return { lines: out, note: `\`result\` removed from toolCalls[] of every copy of the gemini record (${n} line(s))` };
  });

const scenarios = {
  plain: {
    about: "two plain turns (the second is already a `--resume`), then resume",
    steps: [...plainTurns(), resumeStep()],
  },
  tool: {
    about: "thought + text + run_shell_command `echo hi` (thoughtSignature on the call); the client runs it; thought + text; then resume",
    steps: [toolTurn(), resumeStep()],
  },
  "tool-repaired-by-hand": {
    about: "`tool`, then the separate user functionResponse record removed; then resume",
    steps: [toolTurn(), { ...resumeStep(), edit: dropUserResponse }],
  },
  "tool-repaired-drop-result": {
    about: "`tool`, then toolCalls[].result removed from the gemini record (the other candidate repair); then resume",
    steps: [toolTurn(), { ...resumeStep(), edit: dropToolResult }],
  },
  "tool-failed-twice": {
    about: "`tool`, resumed once (fails, the client rewrites the file), then resumed again (captured)",
    steps: [toolTurn(), resumeStep(undefined, "Thanks."), resumeStep(undefined, "Thanks again.")],
  },
  "tool-failed-then-repaired": {
    about: "`tool`, resumed once (fails), then the separate user functionResponse record removed; then resume",
    steps: [toolTurn(), resumeStep(undefined, "Thanks."), { ...resumeStep(undefined, "Thanks again."), edit: dropUserResponse }],
  },
  "killed-mid-call": {
    about: "thought + run_shell_command `sleep 60`; the client (and its children) SIGKILLed 3 s after the call was answered; then resume",
    steps: [
      {
        prompt: "Run `sleep 60`.",
        replies: [
          reply([
            thought("**Sleeping**\n\nRun sleep 60 as asked.", SIG(1)),
            functionCall("run_shell_command", { command: "sleep 60", description: "Sleep a minute." }, SIG(2)),
          ]),
          reply([text("Slept.")]),
        ],
        kill: { afterRequest: 1, afterMs: 3000 },
      },
      resumeStep(reply([text("The command was interrupted.")]), "What happened?"),
    ],
  },
  "empty-gemini": {
    about: "`plain` (two turns), then the first gemini record's content set to [] (every copy); then resume",
    steps: [
      ...plainTurns(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const first = msgLines(lines, (r) => r.type === "gemini")[0].r.id;
            const { out, n } = rewriteRecords(
              lines,
              (r) => r.id === first,
              (r) => ({ ...r, content: [] }),
            );
            return { lines: out, note: `gemini record ${first}: content -> [] (${n} line(s))` };
          }),
      },
    ],
  },
  "empty-gemini-text": {
    about: 'variant of `empty-gemini`: content set to [{"text":""}]',
    steps: [
      ...plainTurns(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const first = msgLines(lines, (r) => r.type === "gemini")[0].r.id;
            const { out, n } = rewriteRecords(
              lines,
              (r) => r.id === first,
              (r) => ({ ...r, content: [{ text: "" }] }),
            );
            return { lines: out, note: `gemini record ${first}: content -> [{"text":""}] (${n} line(s))` };
          }),
      },
    ],
  },
  "empty-gemini-last": {
    about: "`plain` (two turns), then the last gemini record (no thoughts) set to content [] (every copy); then resume",
    steps: [
      ...plainTurns(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const all = msgLines(lines, (r) => r.type === "gemini");
            const last = all[all.length - 1].r.id;
            const { out, n } = rewriteRecords(
              lines,
              (r) => r.id === last,
              (r) => ({ ...r, content: [] }),
            );
            return { lines: out, note: `gemini record ${last} (thoughts: []): content -> [] (${n} line(s))` };
          }),
      },
    ],
  },
  "torn-line": {
    about: "`tool`, then every line holding the gemini record with the functionCall cut in the middle; then resume",
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const idx = msgLines(lines, (r) => r.type === "gemini" && (hasFnCall(r) || (Array.isArray(r.toolCalls) && r.toolCalls.length > 0))).map((x) => x.i);
            if (!idx.length) throw new Error("no gemini record with a call");
            const id = parse(lines[idx[0]]).id;
            const sizes = [];
            for (const i of idx) {
              sizes.push(Buffer.byteLength(lines[i]));
              lines[i] = lines[i].slice(0, Math.floor(lines[i].length / 2));
            }
            return {
              lines,
              note: `gemini record ${id} (holds the call): ${idx.length} line(s) (${sizes.join(", ")} bytes) each cut to its first half, newline kept`,
            };
          }),
      },
    ],
  },
  "result-null": {
    about: "`tool`, then toolCalls[].result set to null in every copy of the gemini record; then resume",
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            const { out, n } = rewriteRecords(
              lines,
              (r) => r.type === "gemini" && Array.isArray(r.toolCalls) && r.toolCalls.length > 0,
              (r) => ({ ...r, toolCalls: r.toolCalls.map((t) => ({ ...t, result: null })) }),
            );
            return { lines: out, note: `toolCalls[].result -> null (${n} line(s))` };
          }),
      },
    ],
  },
  "result-null-repaired": {
    about: "`tool-repaired-by-hand` (user functionResponse record dropped), then toolCalls[].result set to null; then resume",
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (file, ctx) => {
          const a = dropUserResponse(file, ctx);
          const b = editFile(file, (lines) => {
            const { out, n } = rewriteRecords(
              lines,
              (r) => r.type === "gemini" && Array.isArray(r.toolCalls) && r.toolCalls.length > 0,
              (r) => ({ ...r, toolCalls: r.toolCalls.map((t) => ({ ...t, result: null })) }),
            );
            return { lines: out, note: `toolCalls[].result -> null (${n} line(s))` };
          });
          return `${a}; then ${b}`;
        },
      },
    ],
  },
  "rewind-unknown": {
    about: '`plain` (two turns), then `{"$rewindTo":"<id not in the file>"}` appended; then resume',
    steps: [
      ...plainTurns(),
      {
        ...resumeStep(),
        edit: (file) =>
          editFile(file, (lines) => {
            lines.push(JSON.stringify({ $rewindTo: "00000000-0000-4000-8000-000000000000" }));
            return { lines, note: 'appended `{"$rewindTo":"00000000-0000-4000-8000-000000000000"}` (no such message id)' };
          }),
      },
    ],
  },
  "legacy-json": {
    about: "a tool turn written by Gemini CLI 0.30.0 (--legacy-client: one .json session file), then resumed with 0.61.0",
    steps: [{ ...toolTurn(), client: "legacy" }, resumeStep()],
  },
  overflow: {
    about: "`plain` (two turns), then resume answered 400 `The input token count (N) exceeds the maximum number of tokens allowed (M).`",
    steps: [
      ...plainTurns(),
      { prompt: "Thanks.", resume: true, replies: [(body) => checkContents(body) ?? httpError(400, ERR_OVERFLOW(promptTokens(body) + 1048576, 1048576))] },
    ],
  },
};

// ---------------------------------------------------------------------------------------------------------------

function args() {
  const a = {
    client: "/tmp/gemini-client/node_modules/@google/gemini-cli/bundle/gemini.js",
    legacyClient: "/tmp/gemini-old/node_modules/@google/gemini-cli/dist/index.js",
    node: process.execPath,
    scenario: null,
    out: null,
    work: "/tmp/gemini-capture",
    model: "gemini-2.5-pro",
    timeout: 120,
    fixtures: null,
    list: false,
  };
  for (let i = 2; i < process.argv.length; i++) {
    const k = process.argv[i];
    const v = () => process.argv[++i];
    if (k === "--client") a.client = v();
    else if (k === "--legacy-client") a.legacyClient = v();
    else if (k === "--node") a.node = v();
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

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? walk(p) : [p];
  });
}
const chatFiles = (home) => walk(path.join(home, ".gemini", "tmp")).filter((f) => /\/chats\/session-[^/]*\.jsonl?$/.test(f));
// "The" chat file: the biggest one. A resume first starts a fresh recording in session-<now, to the minute>-<id8>.jsonl
// (a metadata line + `$set.messages` with the session context); when that name differs from the resumed file's (another
// minute), this leaves a small stub file next to the session, and the resume then appends to the resumed file.
const bySize = (files) => [...files].sort((x, y) => fs.statSync(y).size - fs.statSync(x).size);
const mainChat = (files, ext) => bySize(ext ? files.filter((f) => f.endsWith(ext)) : files)[0];

function runClient(a, ctx, step, n) {
  return new Promise((resolve) => {
    const argv = [step.client === "legacy" ? a.legacyClient : a.client, "--yolo"];
    if (step.resume) argv.push("--resume", ctx.sessionId ?? "latest");
    argv.push("-p", step.prompt);
    const env = {
      PATH: process.env.PATH,
      HOME: ctx.home,
      TMPDIR: ctx.tmp,
      LANG: "C.UTF-8",
      TERM: "dumb",
      NO_COLOR: "1",
      GEMINI_API_KEY: "dummy",
      GOOGLE_GEMINI_BASE_URL: ctx.mockUrl,
      GEMINI_CLI_NO_RELAUNCH: "1",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    };
    const child = spawn(a.node, argv, { cwd: ctx.project, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    let killed = null;
    const killGroup = (why) => {
      if (killed) return;
      killed = why;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    };
    const timer = setTimeout(() => killGroup("timeout"), a.timeout * 1000);
    ctx.onAnswered = step.kill
      ? (count) => {
          if (count === step.kill.afterRequest) setTimeout(() => killGroup("SIGKILL (scenario)"), step.kill.afterMs);
        }
      : null;
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      ctx.onAnswered = null;
      resolve({ step: n, client: step.client === "legacy" ? "legacy" : "main", argv: argv.slice(1), code, signal, killed, stdout, stderr });
    });
  });
}

function cutStrings(v, max = 4000, keep = 1500) {
  if (typeof v === "string")
    return v.length > max ? v.slice(0, keep) + `[... ${v.length - 2 * keep} characters cut by capture-gemini-chat.mjs ...]` + v.slice(-keep) : v;
  if (Array.isArray(v)) return v.map((x) => cutStrings(x, max, keep));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cutStrings(x, max, keep)]));
  return v;
}
function trimRequest(body) {
  const b = { ...body };
  if (Array.isArray(b.tools)) b.tools = b.tools.map((t) => (t.functionDeclarations ? { functionDeclarations: t.functionDeclarations.map((f) => f.name) } : t));
  return cutStrings(b);
}

async function runScenario(a, name, outDir) {
  const sc = scenarios[name];
  if (!sc) throw new Error(`unknown scenario ${name}`);
  fs.rmSync(a.work, { recursive: true, force: true });
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const ctx = {
    home: path.join(a.work, "home"),
    project: path.join(a.work, "project"),
    tmp: path.join(a.work, "tmp"),
    sessionId: null,
  };
  for (const d of [ctx.home, ctx.project, ctx.tmp, path.join(ctx.home, ".gemini")]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(
    path.join(ctx.home, ".gemini", "settings.json"),
    JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, model: { name: a.model }, privacy: { usageStatisticsEnabled: false } }, null, 2),
  );
  const log = path.join(outDir, "requests.jsonl");
  let queue = [];
  let streamCount = 0;
  const mockState = {
    log,
    tag: null,
    next: (body, entry) => {
      streamCount++;
      const r = queue.shift();
      const out = typeof r === "function" ? r(body, entry) : r;
      setImmediate(() => ctx.onAnswered?.(streamCount));
      return out;
    },
  };
  const mock = await startGeminiMock(mockState);
  ctx.mockUrl = mock.url;
  const meta = { scenario: name, about: sc.about, model: a.model, steps: [] };
  let resumeFirstSeq = null;
  try {
    for (const [k, step] of sc.steps.entries()) {
      const n = k + 1;
      const last = k === sc.steps.length - 1;
      let note = null;
      const files0 = chatFiles(ctx.home);
      if (step.edit) {
        if (!files0.length) throw new Error("no chat file before the edit");
        note = step.edit(mainChat(files0), ctx);
        meta.edit = note;
      }
      if (last) {
        const files = chatFiles(ctx.home);
        meta.chatFile = files.map((f) => path.relative(ctx.home, f));
        if (!files.length) throw new Error("no chat file before the resume");
        const main = mainChat(files);
        meta.chatFileBeforeResume = path.relative(ctx.home, main);
        ctx.beforeExt = path.extname(main);
        fs.copyFileSync(main, path.join(outDir, `chat.before-resume${ctx.beforeExt}`));
      }
      queue = [...step.replies];
      streamCount = 0;
      mockState.tag = n;
      const seqBefore = countLines(log);
      const res = await runClient(a, ctx, step, n);
      fs.writeFileSync(path.join(outDir, `step-${n}.stdout`), res.stdout);
      fs.writeFileSync(path.join(outDir, `step-${n}.stderr`), res.stderr);
      const { stdout, stderr, ...exit } = res;
      fs.writeFileSync(path.join(outDir, `step-${n}.exit.json`), JSON.stringify(exit, null, 2) + "\n");
      const files = chatFiles(ctx.home);
      bySize(files).forEach((f, j) => {
        fs.copyFileSync(f, path.join(outDir, `chat-after-step-${n}${j ? "-" + j : ""}${path.extname(f)}`));
      });
      if (!ctx.sessionId && files.length) {
        const raw = fs.readFileSync(mainChat(files), "utf8");
        const first = parse(raw.split("\n")[0]) ?? parse(raw); // a legacy .json session is one pretty-printed object
        ctx.sessionId = first?.sessionId ?? null;
      }
      const reqs = readLog(log).slice(seqBefore);
      meta.steps.push({
        n,
        prompt: step.prompt,
        resume: !!step.resume,
        edit: note,
        exit,
        requests: reqs.map((r) => ({ seq: r.seq, kind: r.kind ?? `${r.method} ${r.path}`, answer: r.answer })),
      });
      if (last) {
        const first = reqs.find((r) => r.kind === "streamGenerateContent");
        if (first) {
          resumeFirstSeq = first.seq;
          fs.writeFileSync(path.join(outDir, "resume-request.json"), JSON.stringify(first.body, null, 2) + "\n");
          fs.writeFileSync(path.join(outDir, "resume-request.trimmed.json"), JSON.stringify(trimRequest(first.body), null, 2) + "\n");
        }
        // After the resume: the .jsonl file (a legacy .json session is migrated into <name>.jsonl next to it).
        const afterFile = mainChat(files, ".jsonl") ?? mainChat(files);
        if (afterFile) fs.copyFileSync(afterFile, path.join(outDir, `chat.after${path.extname(afterFile)}`));
        meta.resume = {
          exit,
          stdout,
          stderr,
          requestSeq: resumeFirstSeq,
          chatFilesAfter: files.map((f) => ({ file: path.relative(ctx.home, f), bytes: fs.statSync(f).size })),
        };
      }
    }
  } finally {
    await mock.close();
  }
  meta.sessionId = ctx.sessionId;
  meta.beforeExt = ctx.beforeExt ?? null;
  fs.writeFileSync(
    path.join(outDir, "home-files.txt"),
    walk(ctx.home)
      .map((f) => path.relative(ctx.home, f))
      .join("\n") + "\n",
  );
  fs.writeFileSync(path.join(outDir, "meta.json"), JSON.stringify(meta, null, 2) + "\n");
  if (a.fixtures) writeFixtures(a, name, outDir, meta);
  return meta;
}

function countLines(file) {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}
function readLog(file) {
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

function writeFixtures(a, name, outDir, meta) {
  fs.mkdirSync(a.fixtures, { recursive: true });
  const src = (f) => path.join(outDir, f);
  const dst = (f) => path.join(a.fixtures, `${name}${f}`);
  for (const f of [".jsonl", ".json", ".resume-request.json", ".after.jsonl", ".resume.stderr.txt"]) fs.rmSync(dst(f), { force: true });
  const ext = meta.beforeExt ?? ".jsonl";
  if (fs.existsSync(src(`chat.before-resume${ext}`))) fs.copyFileSync(src(`chat.before-resume${ext}`), dst(ext));
  if (fs.existsSync(src("resume-request.trimmed.json"))) fs.copyFileSync(src("resume-request.trimmed.json"), dst(".resume-request.json"));
  const before = fs.existsSync(src(`chat.before-resume${ext}`)) ? fs.readFileSync(src(`chat.before-resume${ext}`)) : null;
  const after = fs.existsSync(src("chat.after.jsonl")) ? fs.readFileSync(src("chat.after.jsonl")) : null;
  if (after && !before?.equals(after)) fs.copyFileSync(src("chat.after.jsonl"), dst(".after.jsonl"));
  const ex = meta.resume?.exit;
  if (ex && (ex.code !== 0 || ex.signal)) fs.writeFileSync(dst(".resume.stderr.txt"), meta.resume.stderr);
  const metaFile = path.join(a.fixtures, "capture-meta.json");
  const all = fs.existsSync(metaFile) ? JSON.parse(fs.readFileSync(metaFile, "utf8")) : {};
  all[name] = {
    about: meta.about,
    chatFile: meta.chatFileBeforeResume,
    chatFilesBeforeResume: meta.chatFile,
    chatFilesAfterResume: meta.resume?.chatFilesAfter ?? null,
    sessionId: meta.sessionId,
    edit: meta.edit ?? null,
    steps: meta.steps.map((s) => ({
      n: s.n,
      prompt: s.prompt,
      resume: s.resume,
      exit: { code: s.exit.code, signal: s.exit.signal, killed: s.exit.killed },
      requests: s.requests,
    })),
    resumeStdout: meta.resume?.stdout ?? null,
  };
  fs.writeFileSync(metaFile, JSON.stringify(Object.fromEntries(Object.entries(all).sort()), null, 2) + "\n");
}

const a = args();
if (a.list) {
  for (const [k, v] of Object.entries(scenarios)) console.log(`${k.padEnd(28)} ${v.about}`);
  process.exit(0);
}
if (!a.scenario) throw new Error("--scenario <name|all> required (or --list)");
const names = a.scenario === "all" ? Object.keys(scenarios) : a.scenario.split(",");
for (const name of names) {
  const outDir = a.scenario === "all" || names.length > 1 ? path.join(a.out ?? "/tmp/gemini-out", name) : (a.out ?? `/tmp/gemini-out/${name}`);
  const t0 = Date.now();
  const meta = await runScenario(a, name, outDir);
  const ex = meta.resume?.exit;
  const ans = meta.steps
    .at(-1)
    ?.requests.filter((r) => r.kind === "streamGenerateContent")
    .map((r) => (typeof r.answer === "object" ? r.answer.status : r.answer));
  console.log(
    `${name}: resume exit ${ex?.code}${ex?.signal ? " " + ex.signal : ""}, resume requests answered [${ans?.join(", ")}], ${((Date.now() - t0) / 1000).toFixed(1)} s -> ${outDir}`,
  );
}
