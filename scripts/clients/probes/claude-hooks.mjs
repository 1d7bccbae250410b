#!/usr/bin/env node
// Probe (issue 41): what Claude Code's hooks really do, offline against the loopback Messages API mock, in the client
// driver's sandbox.
//
//   node scripts/clients/probes/claude-hooks.mjs [--version 2.1.332] [--work /tmp/cc-probe] [--out /tmp/cc-probe-out]
//
// Hooks are written to all three settings files the client may read: the user's ($CLAUDE_CONFIG_DIR/settings.json),
// the project's (.claude/settings.json) and the project's local one (.claude/settings.local.json), each hook command
// tagged with its file, so the log says which files the run honours. Every hook command is this script itself in
// `--hook <tag>` mode: it appends its stdin JSON to <out>/hooks.jsonl; the SessionStart one (matcher "resume", user
// settings only) also appends a marker to the first user prompt of the transcript it is given (transcript_path), so
// the first request after `claude -p --resume <id>` says whether the hook ran before the transcript was read.
// Steps: 1 a new session; 2 `--resume` (the SessionStart hook edits the transcript); 3 `--resume` answered 400
// invalid_request_error on the first request (which of Stop / StopFailure / Notification fire, with what); 4 `--resume` with a SessionStart
// hook that sleeps 5 s under a 1 s timeout (does it block start-up, is it killed); 5 `--resume` with every request
// refused 400 with a text the client has no handling for; 6 the same, the prompt
// on stdin (stream-json) and the process kept alive 8 s after it.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const MARKER = "EDITED-BY-SESSIONSTART-HOOK";
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

if (process.argv.includes("--hook")) {
  // Hook mode: stdin is the hook's JSON; the log path and what to do come from argv.
  const tag = arg("hook");
  const logFile = arg("log");
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const raw = Buffer.concat(chunks).toString("utf8");
  let input = null;
  try {
    input = JSON.parse(raw);
  } catch {
    input = { unparsed: raw };
  }
  const entry = { tag, at: Date.now(), pid: process.pid, ppidComm: fs.readFileSync(`/proc/${process.ppid}/comm`, "utf8").trim(), input };
  if (process.argv.includes("--edit") && input?.transcript_path) {
    const file = input.transcript_path;
    entry.transcriptExists = fs.existsSync(file);
    if (entry.transcriptExists) {
      const lines = fs.readFileSync(file, "utf8").split("\n");
      const i = lines.findIndex((l) => {
        try {
          const r = JSON.parse(l);
          return r.type === "user" && typeof r.message?.content === "string";
        } catch {
          return false;
        }
      });
      if (i >= 0) {
        const r = JSON.parse(lines[i]);
        r.message.content = `${r.message.content} ${MARKER}`;
        lines[i] = JSON.stringify(r);
        fs.writeFileSync(file, lines.join("\n"));
        entry.edited = r.uuid;
      }
    }
  }
  const sleep = Number(arg("sleep", "0"));
  if (sleep) {
    entry.sleeping = sleep;
    fs.appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
    await new Promise((r) => setTimeout(r, sleep * 1000));
    fs.appendFileSync(logFile, `${JSON.stringify({ tag, at: Date.now(), woke: true })}\n`);
  } else fs.appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
  if (process.argv.includes("--say")) process.stdout.write(`hook ${tag} stdout\n`);
  process.exit(0);
}

const { httpError, plainReply, startMock } = await import("../api/messages.mjs");
const { loadClient } = await import("../index.mjs");
const { installClient } = await import("../lib/install.mjs");
const { runProcess } = await import("../lib/proc.mjs");

const version = arg("version", "2.1.332");
const work = path.resolve(arg("work", "/tmp/cc-probe"));
const out = path.resolve(arg("out", "/tmp/cc-probe-out"));
fs.rmSync(work, { recursive: true, force: true });
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
fs.mkdirSync(out, { recursive: true });
const { driver } = await loadClient("claude-code");
const installed = installClient(driver, version);
const hookLog = path.join(out, "hooks.jsonl");
const log = path.join(out, "requests.jsonl");
const replies = [];
// `always`: the reply every main request of the step gets (a refusal the client may retry).
let always = null;
const state = { log, tag: 1, next: () => always ?? replies.shift() };
const mock = await startMock(state);
const ctx = { work, version, model: driver.defaultModel, scenario: {}, mock, installed };
const sb = driver.sandbox(ctx);
const hook = (tag, extra = "") => `${process.execPath} ${SELF} --hook ${tag} --log ${hookLog}${extra}`;
const cmd = (tag, extra, timeout) => ({ type: "command", command: hook(tag, extra), ...(timeout ? { timeout } : {}) });
const events = ["Stop", "StopFailure", "Notification", "SessionEnd", "UserPromptSubmit"];
const settings = (file, where, sessionStart) => {
  const hooks = Object.fromEntries(events.map((e) => [e, [{ hooks: [cmd(`${where}:${e}`)] }]]));
  hooks.SessionStart = sessionStart ?? [{ hooks: [cmd(`${where}:SessionStart`)] }];
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ hooks }, null, 2)}\n`);
};
const userSettings = path.join(sb.configDir, "settings.json");
const writeAll = (sessionStart) => {
  settings(userSettings, "user", sessionStart);
  settings(path.join(sb.cwd, ".claude", "settings.json"), "project");
  settings(path.join(sb.cwd, ".claude", "settings.local.json"), "local");
};
writeAll([
  { matcher: "resume", hooks: [cmd("user:SessionStart:resume", " --edit --say")] },
  { matcher: "startup", hooks: [cmd("user:SessionStart:startup")] },
]);

const summary = { version, steps: [] };
let sessionId = null;
const run = async (n, prompt, reply, { stream } = {}) => {
  state.tag = n;
  replies.length = 0;
  replies.push(reply);
  const t0 = Date.now();
  // stream: the prompt as a stream-json line on stdin, kept open 8 s more, so the process outlives a hook it does
  // not wait for (as an interactive session does).
  const args = [
    ...(stream ? [] : [prompt]),
    "-p",
    ...(stream ? ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"] : ["--output-format", "json"]),
    "--model",
    ctx.model,
    ...(sessionId ? ["--resume", sessionId] : []),
  ];
  const input = stream
    ? [{ text: `${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: prompt }] } })}\n` }, { text: "", afterMs: 8000 }]
    : undefined;
  fs.appendFileSync(hookLog, `${JSON.stringify({ step: n, at: t0, argv: args })}\n`);
  const r = await runProcess(installed.command, args, {
    ...(input ? { input } : {}),
    cwd: sb.cwd,
    env: sb.env,
    timeoutMs: 180_000,
    stdoutFile: path.join(out, `step-${n}.stdout`),
    stderrFile: path.join(out, `step-${n}.stderr`),
  });
  const reqs = fs.existsSync(log)
    ? fs
        .readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((q) => q.tag === n && q.main)
    : [];
  const first = reqs[0];
  const o = {
    step: n,
    exit: r.code,
    ms: Date.now() - t0,
    requests: reqs.length,
    firstRequestCarriesMarker: first ? JSON.stringify(first.body.messages).includes(MARKER) : null,
    firstRequestUserTexts: first
      ? first.body.messages
          .filter((m) => m.role === "user")
          .map((m) => (typeof m.content === "string" ? m.content : m.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join(" | ")).slice(-200))
      : null,
    stdout: r.stdout.slice(0, 1500),
    stderr: r.stderr.slice(0, 1500),
  };
  summary.steps.push(o);
  console.error(JSON.stringify(o).slice(0, 2500));
  if (!sessionId) {
    const projects = path.join(sb.configDir, "projects");
    for (const d of fs.readdirSync(projects)) for (const f of fs.readdirSync(path.join(projects, d))) if (f.endsWith(".jsonl")) sessionId = f.slice(0, -6);
    summary.sessionId = sessionId;
  }
  return o;
};

await run(1, "Say one.", plainReply("one"));
await run(2, "Say two.", plainReply("two"));
await run(3, "Say three.", httpError(400, "invalid_request_error", "messages.1.content.0.text: text content blocks must contain non-whitespace text"));
writeAll([{ matcher: "resume", hooks: [cmd("user:SessionStart:resume:slow", " --sleep 5", 1)] }]);
await run(4, "Say four.", plainReply("four"));
// 5: every request refused with a 400 the client has no special handling for (step 3's wording it may repair itself).
writeAll();
always = httpError(400, "invalid_request_error", "mock: messages.1: something is wrong");
await run(5, "Say five.", always);
await run(6, "Say six.", always, { stream: true });
always = null;
await mock.close();
await new Promise((r) => setTimeout(r, 5000));
summary.hooks = fs
  .readFileSync(hookLog, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
fs.writeFileSync(path.join(out, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
console.error(`summary: ${path.join(out, "summary.json")}`);
