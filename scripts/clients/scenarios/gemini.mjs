// The Gemini CLI scenarios (driver: ../gemini.mjs): each builds a session with the real client, damages it (or kills
// the client mid-call, or lets the client damage it itself), and resumes it. The fixtures in fixtures/gemini-0.61 are
// what they capture; `loop` scenarios are also the client suite's repair loops (the resume refused or the damage
// there, recover, the resume accepted). `versions` names the versions a scenario runs on (default: every version of
// the driver): the line edits need the .jsonl chat files 0.40 and later write.
//
// Each step runs the client once: { prompt, resume?: true, replies: [reply | (body, entry, ctx) => reply], kill?: {
// afterRequest: n (1-based, :streamGenerateContent requests within the step), afterMs }, edit?(ctx) -> note,
// version? }. `edit` runs before its step, on ctx.session.file (the chat file the client resumes); the mock applies the
// API's rules (api/gemini-rules.mjs: checkContents) to every request.
import fs from "node:fs";
import path from "node:path";
import { ERR_OVERFLOW, fakeSignature, functionCall, httpError, modelOfPath, modelSignature, promptTokens, reply, text, thought } from "../api/gemini.mjs";
import { clientLine } from "../index.mjs";
import { editLines, parseLine } from "../lib/files.mjs";

// ---------------------------------------------------------------------------------------------------------------
// Chat-file edits. A message record has an `id` and a `type`; the client appends a record again when it changes (the
// last copy wins, in the first copy's place) and every resume writes `{"$set": {"messages": [...]}}` holding copies
// too, so an edit changes every copy. A legacy .json session is one document holding `messages`.

const isRecord = (r) => r && typeof r.id === "string" && r.type;
const hasFnCall = (r) => Array.isArray(r.content) && r.content.some((p) => p?.functionCall);
const hasFnResp = (r) => Array.isArray(r.content) && r.content.some((p) => p?.functionResponse);
const hasToolCalls = (r) => r.type === "gemini" && Array.isArray(r.toolCalls) && r.toolCalls.length > 0;

/** Message records in file order (every copy), with the line each is on. */
const records = (lines) => lines.map((l, i) => ({ i, r: parseLine(l) })).filter(({ r }) => isRecord(r));

/**
 * Change the records matching `pred` in every copy: `fn(record)` returns the new record, or null to drop it. Returns
 * the number of lines changed (of a legacy document: records). Lines that do not change keep their bytes.
 */
function changeRecords(file, pred, fn) {
  if (file.endsWith(".json")) {
    const raw = fs.readFileSync(file, "utf8");
    const doc = JSON.parse(raw);
    const n = doc.messages.filter(pred).length;
    doc.messages = doc.messages.flatMap((m) => (pred(m) ? [fn(m)].filter(Boolean) : [m]));
    fs.writeFileSync(file, JSON.stringify(doc, null, 2) + (raw.endsWith("\n") ? "\n" : ""));
    return { n, unit: "record(s) of the document" };
  }
  let n = 0;
  editLines(file, (lines) => {
    const out = [];
    for (const l of lines) {
      const r = parseLine(l);
      if (isRecord(r) && pred(r)) {
        n++;
        const m = fn(r);
        if (m) out.push(JSON.stringify(m));
      } else if (Array.isArray(r?.$set?.messages) && r.$set.messages.some(pred)) {
        n++;
        r.$set.messages = r.$set.messages.flatMap((m) => (pred(m) ? [fn(m)].filter(Boolean) : [m]));
        out.push(JSON.stringify(r));
      } else out.push(l);
    }
    return { lines: out };
  });
  return { n, unit: "line(s)" };
}
/** The message records of the chat file, every copy, in file order. */
function allRecords(file) {
  const raw = fs.readFileSync(file, "utf8");
  return file.endsWith(".json") ? JSON.parse(raw).messages : records(raw.split("\n")).map(({ r }) => r);
}

// The separate `user` record the client writes for a tool result (not the `<gemini id>_response` record that a resume
// derives from toolCalls[].result and writes into `$set.messages`).
function dropUserResponse(ctx) {
  const { n } = changeRecords(
    ctx.session.file,
    (r) => r.type === "user" && hasFnResp(r) && !r.id.endsWith("_response"),
    () => null,
  );
  if (!n) throw new Error("no user functionResponse record");
  return `the separate \`user\` record with the functionResponse dropped from every line holding it (${n} line(s))`;
}
function dropToolResult(ctx) {
  const { n } = changeRecords(
    ctx.session.file,
    (r) => r.type === "gemini" && Array.isArray(r.toolCalls) && r.toolCalls.some((t) => "result" in t),
    (r) => ({ ...r, toolCalls: r.toolCalls.map(({ result, ...t }) => t) }),
  );
  if (!n) throw new Error("no toolCalls[].result");
  return `\`result\` removed from toolCalls[] of every copy of the gemini record (${n} line(s))`;
}
function nullToolResult(ctx) {
  const { n, unit } = changeRecords(ctx.session.file, hasToolCalls, (r) => ({ ...r, toolCalls: r.toolCalls.map((t) => ({ ...t, result: null })) }));
  return `toolCalls[].result -> null (${n} ${unit})`;
}
/** The content of the first (or last) gemini record set to `content` in every copy. */
const setGeminiContent =
  (which, content, about = "") =>
  (ctx) => {
    const all = allRecords(ctx.session.file).filter((r) => r.type === "gemini");
    const id = (which === "last" ? all.at(-1) : all[0]).id;
    const { n, unit } = changeRecords(
      ctx.session.file,
      (r) => r.id === id,
      (r) => ({ ...r, content }),
    );
    return `gemini record ${id}${about}: content -> ${JSON.stringify(content)} (${n} ${unit})`;
  };
/** Every line holding the gemini record with the call cut to its first half, newline kept. */
const tearCallRecord = (ctx) =>
  editLines(ctx.session.file, (lines) => {
    const idx = records(lines)
      .filter(({ r }) => r.type === "gemini" && (hasFnCall(r) || hasToolCalls(r)))
      .map(({ i }) => i);
    if (!idx.length) throw new Error("no gemini record with a call");
    const id = parseLine(lines[idx[0]]).id;
    const sizes = [];
    for (const i of idx) {
      sizes.push(Buffer.byteLength(lines[i]));
      lines[i] = lines[i].slice(0, Math.floor(lines[i].length / 2));
    }
    return { lines, note: `gemini record ${id} (holds the call): ${idx.length} line(s) (${sizes.join(", ")} bytes) each cut to its first half, newline kept` };
  });
/** A legacy .json session cut short, as a write that never finished leaves it: its last third of bytes gone. */
function cutDocument(ctx) {
  const file = ctx.session.file;
  if (!file.endsWith(".json")) throw new Error(`not a legacy .json session: ${file}`);
  const bytes = fs.readFileSync(file);
  const keep = Math.floor((bytes.length * 2) / 3);
  fs.writeFileSync(file, bytes.subarray(0, keep));
  return `the .json document cut to its first ${keep} of ${bytes.length} bytes`;
}
/**
 * A 0-byte chat file with the session's own 8-character suffix and a later start time: what a resume killed right
 * after creating its fresh recording leaves (gemini-cli#26425). Written two hours ago: no client is writing it.
 */
function plantEmptySibling(ctx) {
  // A minute the session's own file does not carry (a resume in the same minute writes into the resumed file itself).
  const named = (minute) =>
    path.join(path.dirname(ctx.session.file), `session-${new Date(minute).toISOString().slice(0, 16).replace(":", "-")}-${ctx.session.id.slice(0, 8)}.jsonl`);
  let minute = Date.now() + 60_000;
  while (fs.existsSync(named(minute))) minute += 60_000;
  const file = named(minute);
  fs.writeFileSync(file, "", { flag: "wx" });
  const then = new Date(Date.now() - 2 * 3_600_000);
  fs.utimesSync(file, then, then);
  ctx.emptySibling = path.basename(file, ".jsonl");
  return `a 0-byte ${path.basename(file)} beside the session's own chat file (same 8-character suffix)`;
}
/**
 * The session's chat file named one minute earlier, as if it were started in an earlier minute than the resume that
 * follows: the resume's fresh recording then lands in a file of its own, which the client leaves behind (a stub).
 */
function startedAMinuteEarlier(ctx) {
  const from = ctx.session.file;
  const m = /session-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2})-/.exec(path.basename(from));
  if (!m) throw new Error(`not a chat file name: ${from}`);
  const [date, time] = m[1].split("T");
  const earlier = new Date(Date.parse(`${date}T${time.replace("-", ":")}:00Z`) - 60_000).toISOString().slice(0, 16).replace(":", "-");
  const to = path.join(path.dirname(from), path.basename(from).replace(m[1], earlier));
  fs.renameSync(from, to);
  ctx.session = { ...ctx.session, file: to };
  return `${path.basename(from)} renamed ${path.basename(to)} (started a minute earlier: the resume writes its fresh recording beside it)`;
}
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
const rewindToUnknown = (ctx) =>
  editLines(ctx.session.file, (lines) => {
    lines.push(JSON.stringify({ $rewindTo: UNKNOWN_ID }));
    return { lines, note: `appended \`{"$rewindTo":"${UNKNOWN_ID}"}\` (no such message id)` };
  });

// ---------------------------------------------------------------------------------------------------------------
// Steps.

const SIG = (n) => fakeSignature(`sig-${n}`);
// The driver's version that writes one .json per session; the others write .jsonl, which the line edits need.
const LEGACY = "0.30.0";
const JSONL = clientLine("gemini").versions.filter((v) => v !== LEGACY);
const REFUSED = { expect: 400, expectRule: "invalid_argument" };
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
// A tool turn whose signatures the mock issues for the model each request went to (the mock refuses them elsewhere).
const signedToolTurn = () => ({
  prompt: "Run `echo hi` and tell me the output.",
  replies: [
    (_body, entry) =>
      reply([
        thought("**Running the command**\n\nRun `echo hi` with the shell tool.", modelSignature(modelOfPath(entry.path), "sig-1")),
        text("Running it."),
        functionCall("run_shell_command", { command: "echo hi", description: "Print hi." }, modelSignature(modelOfPath(entry.path), "sig-2")),
      ]),
    reply([text("The command printed: hi")]),
  ],
});
const SWITCHED_MODEL = "gemini-3-flash-preview";
/** The compression threshold the scenario set goes (the client's default again): the next run does not compress. */
function defaultCompression(ctx) {
  const file = `${ctx.sandbox.store}/settings.json`;
  const settings = JSON.parse(fs.readFileSync(file, "utf8"));
  delete settings.model.compressionThreshold;
  fs.writeFileSync(file, JSON.stringify(settings, null, 2));
  return `settings.json: model.compressionThreshold removed (the default again); the resume switches the model with --model ${SWITCHED_MODEL}`;
}
const plainTurns = () => [
  { prompt: "Say hello.", replies: [reply([thought("**Greeting**\n\nA plain hello.", SIG(1)), text("Hello! How can I help?")])] },
  { prompt: "What is 2+2?", resume: true, replies: [reply([text("2 + 2 = 4.")])] },
];
const resumeStep = (r = reply([text("You're welcome.")]), prompt = "Thanks.") => ({ prompt, resume: true, replies: [r] });

export const scenarios = {
  plain: {
    about: "two plain turns (the second is already a `--resume`), then resume",
    steps: [...plainTurns(), resumeStep()],
  },
  tool: {
    loop: true,
    // The refusal is the .jsonl writers' own damage (the result recorded twice, gemini-cli#29365); 0.30 records it
    // once and its resume is accepted.
    versions: JSONL,
    about: "thought + text + run_shell_command `echo hi` (thoughtSignature on the call); the client runs it; thought + text; then resume",
    steps: [toolTurn(), { ...resumeStep(), ...REFUSED }],
  },
  "tool-repaired-by-hand": {
    versions: JSONL,
    about: "`tool`, then the separate user functionResponse record removed; then resume",
    steps: [toolTurn(), { ...resumeStep(), edit: dropUserResponse }],
  },
  "tool-repaired-drop-result": {
    versions: JSONL,
    about: "`tool`, then toolCalls[].result removed from the gemini record (the other candidate repair); then resume",
    steps: [toolTurn(), { ...resumeStep(), edit: dropToolResult }],
  },
  "tool-failed-twice": {
    loop: true,
    versions: JSONL,
    about: "`tool`, resumed once (fails, the client rewrites the file), then resumed again (captured)",
    steps: [toolTurn(), { ...resumeStep(undefined, "Thanks."), ...REFUSED }, { ...resumeStep(undefined, "Thanks again."), ...REFUSED }],
  },
  "tool-failed-then-repaired": {
    versions: JSONL,
    about: "`tool`, resumed once (fails), then the separate user functionResponse record removed; then resume",
    steps: [toolTurn(), { ...resumeStep(undefined, "Thanks."), ...REFUSED }, { ...resumeStep(undefined, "Thanks again."), edit: dropUserResponse }],
  },
  "killed-mid-call": {
    loop: true,
    smoke: true,
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
    loop: true,
    about: "`plain` (two turns), then the first gemini record's content set to [] (every copy); then resume",
    steps: [...plainTurns(), { ...resumeStep(), edit: setGeminiContent("first", []) }],
  },
  "empty-gemini-text": {
    loop: true,
    about: 'variant of `empty-gemini`: content set to [{"text":""}]',
    steps: [...plainTurns(), { ...resumeStep(), edit: setGeminiContent("first", [{ text: "" }]) }],
  },
  "empty-gemini-last": {
    loop: true,
    about: "`plain` (two turns), then the last gemini record (no thoughts) set to content [] (every copy); then resume",
    steps: [...plainTurns(), { ...resumeStep(), edit: setGeminiContent("last", [], " (thoughts: [])") }],
  },
  "torn-line": {
    loop: true,
    versions: JSONL,
    about: "`tool`, then every line holding the gemini record with the functionCall cut in the middle; then resume",
    steps: [toolTurn(), { ...resumeStep(), edit: tearCallRecord, ...REFUSED }],
  },
  "result-null": {
    loop: true,
    about: "`tool`, then toolCalls[].result set to null in every copy of the gemini record; then resume",
    steps: [toolTurn(), { ...resumeStep(), edit: nullToolResult }],
  },
  "result-null-repaired": {
    loop: true,
    versions: JSONL,
    about: "`tool-repaired-by-hand` (user functionResponse record dropped), then toolCalls[].result set to null; then resume",
    steps: [toolTurn(), { ...resumeStep(), edit: (ctx) => `${dropUserResponse(ctx)}; then ${nullToolResult(ctx)}`, ...REFUSED }],
  },
  // Issue 40, row 16's audit (docs/research/severity-audit.md): a lone UTF-16 surrogate in a stored model text (the
  // shape of anthropics/claude-code#68325). What Gemini CLI sends for it decides corrupted-tool-output's severity here.
  "text-surrogate": {
    versions: JSONL,
    about: "`plain` (two turns), then the first gemini record's text given a lone high surrogate (every copy); then resume",
    steps: [
      ...plainTurns(),
      {
        ...resumeStep(),
        edit: (ctx) => {
          const first = allRecords(ctx.session.file).find((r) => r.type === "gemini").id;
          const { n, unit } = changeRecords(
            ctx.session.file,
            (r) => r.id === first,
            (r) => ({
              ...r,
              content:
                typeof r.content === "string"
                  ? `${r.content}\ud83d`
                  : r.content.map((p) => (typeof p.text === "string" ? { ...p, text: `${p.text}\ud83d` } : p)),
            }),
          );
          return `gemini record ${first}: its text ends in a lone high surrogate (${n} ${unit})`;
        },
      },
    ],
  },
  "rewind-unknown": {
    loop: true,
    versions: JSONL,
    about: '`plain` (two turns), then `{"$rewindTo":"<id not in the file>"}` appended; then resume',
    steps: [...plainTurns(), { ...resumeStep(), edit: rewindToUnknown }],
  },
  "legacy-json": {
    loop: true,
    versions: JSONL,
    about: "a tool turn written by Gemini CLI 0.30.0 (one .json session file), then resumed with 0.61.0",
    steps: [{ ...toolTurn(), version: LEGACY }, resumeStep()],
  },
  "signature-corrupted": {
    loop: { resumeArgs: ["--model", SWITCHED_MODEL] },
    versions: JSONL,
    model: "gemini-3-pro-preview",
    // A low compression threshold makes the second run compress the history before its tool call is answered, as a
    // long session does: the rewritten `$set.messages` keeps the call's live thoughtSignature (docs/research/gemini-signatures.md).
    settings: { model: { compressionThreshold: 0.001 } },
    about:
      "`Say hello.`, then a resumed tool turn whose history the client compresses (it stores the call's thoughtSignature); then resume with --model " +
      "gemini-3-flash-preview: the stored signature, issued for another model, is refused",
    steps: [
      plainTurns()[0],
      { ...signedToolTurn(), resume: true },
      { ...resumeStep(), args: ["--model", SWITCHED_MODEL], edit: defaultCompression, ...REFUSED },
    ],
  },
  "truncated-json": {
    loop: true,
    versions: [LEGACY],
    about: "`plain` (two turns) written by 0.30 as one .json document, then the document cut short (the last third of its bytes gone); then resume",
    steps: [...plainTurns(), { ...resumeStep(), edit: cutDocument }],
  },
  "empty-sibling": {
    versions: JSONL,
    about:
      "`plain` (two turns); then an empty chat file with the session's suffix, removed by recover; then a new session (its start-up cleanup would delete every chat file with that suffix), and the first session resumed",
    steps: plainTurns(),
    loop: {
      edit: plantEmptySibling,
      session: (ctx) => ctx.emptySibling,
      between: [{ prompt: "Say hi.", replies: [reply([text("Hi.")])], expect: 200 }],
    },
  },
  "resume-stub": {
    versions: JSONL,
    about:
      "`plain`, the second turn a resume in a later minute (the client leaves its fresh recording beside the session: a stub with the session's suffix); recover removes the stub; then a new session (its start-up cleanup would delete the stub and the session's own file), and the first session resumed",
    steps: [plainTurns()[0], { ...plainTurns()[1], edit: startedAMinuteEarlier }],
    loop: { between: [{ prompt: "Say hi.", replies: [reply([text("Hi.")])], expect: 200 }] },
  },
  "resume-stub-unrepaired": {
    versions: JSONL,
    about: "`resume-stub` without recover: the new session's start-up cleanup deletes the session, whose resume then fails",
    steps: [
      plainTurns()[0],
      { ...plainTurns()[1], edit: startedAMinuteEarlier },
      { prompt: "Say hi.", replies: [reply([text("Hi.")])], expect: 200 },
      {
        prompt: "Continue.",
        resume: true,
        replies: [],
        check: (_ctx, r) =>
          r.code === 42 && /Invalid session identifier/.test(r.stderr)
            ? []
            : [`expected the resume to fail (exit 42, Invalid session identifier), got exit ${r.code}`],
      },
    ],
  },
  overflow: {
    about: "`plain` (two turns), then resume answered 400 `The input token count (N) exceeds the maximum number of tokens allowed (M).`",
    steps: [...plainTurns(), { prompt: "Thanks.", resume: true, replies: [(body) => httpError(400, ERR_OVERFLOW(promptTokens(body) + 1048576, 1048576))] }],
  },
};
