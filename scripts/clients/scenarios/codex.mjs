// The Codex CLI scenarios (driver: ../codex.mjs): each builds a session with the real client, damages it (or kills
// the client mid-call), and resumes it. The fixtures in fixtures/codex-0.169 are what they capture; `loop: true`
// scenarios are also the client suite's repair loops (the resume refused, recover, the resume accepted).
//
// Each step runs the client once: { prompt, resume?: true, replies: [reply | (body) => reply], kill?: { afterRequest: n
// (1-based within the step), afterMs }, edit?(ctx) -> note }. `edit` runs before its step; the mock applies the API's
// rules (api/responses-rules.mjs) to every request.
import fs from "node:fs";
import path from "node:path";
import { functionCall, httpError, message, reasoning, reply } from "../api/responses.mjs";
import { editLines, parseLine } from "../lib/files.mjs";

const isItem = (l, type) => parseLine(l)?.type === "response_item" && parseLine(l)?.payload?.type === type;
function findLine(lines, type, pred = () => true, from = "first") {
  const idx = lines.map((l, i) => (isItem(l, type) && pred(parseLine(l).payload) ? i : -1)).filter((i) => i >= 0);
  if (!idx.length) throw new Error(`no response_item ${type} line`);
  return from === "last" ? idx[idx.length - 1] : idx[0];
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
/** The resume step, after `fn` edited the rollout's lines ({ lines, note, noFinalNewline? }). */
const resumeAfter = (fn) => ({ ...resumeStep(), edit: (ctx) => editLines(ctx.session.file, fn) });
const resumeStep = (r = reply([message("You're welcome.")]), prompt = "Thanks.") => ({ prompt, resume: true, replies: [r] });

const refuseReasoning = (enc) =>
  httpError(400, `The encrypted content ${enc.slice(0, 4)}...${enc.slice(-4)} could not be verified.`, { code: "invalid_encrypted_content" });

// A tool turn with a 200004-byte output (max_output_tokens 100000).
const seqTurn = {
  prompt: "Print the numbers 1 to 33334.",
  replies: [
    reply([reasoning("I will print them with seq.", ENC(1)), shell("call_mock_seq_01", "seq -w 1 33334", { yield_time_ms: 10000, max_output_tokens: 100000 })]),
    reply([message("Printed 33334 numbers.")]),
  ],
};

// A compaction limit under what the first turn used: Codex compacts before the next turn.
const AUTO_COMPACT = "model_auto_compact_token_limit = 1000\n";

// A compaction item the API cannot verify (openai/codex#35334 names it `cmp_34....b7bd`).
const BAD_COMPACTION = { type: "compaction", id: "cmp_3400aa11ffee22b7bd", encrypted_content: "gAAAAABmockCompaction1QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo==" };
const holdsBadCompaction = (body) => (body.input ?? []).some((it) => it.type === "compaction" && it.id === BAD_COMPACTION.id);
const refuseCompaction = () =>
  httpError(400, "The encrypted content for item cmp_34....b7bd could not be verified. Reason: Encrypted content could not be decrypted or parsed.", {
    code: "invalid_encrypted_content",
  });

// `plain`'s first turn, reported as 90,000 input tokens; then a resume with a compaction limit under that: Codex
// compacts before the turn (a /responses call with its compaction prompt, answered with a summary).
const compactingTurns = [
  { prompt: "Say hello.", replies: [reply([message("Hello! How can I help?")], { input_tokens: 90000, output_tokens: 10 })] },
  {
    prompt: "Say it again.",
    resume: true,
    edit: (ctx) => {
      const file = path.join(ctx.sandbox.codexHome, "config.toml");
      fs.writeFileSync(file, `${AUTO_COMPACT}${fs.readFileSync(file, "utf8")}`);
      return `config.toml: ${AUTO_COMPACT.trim()} added (rollout untouched)`;
    },
    replies: [reply([message("The user asked for a greeting; I said hello.")]), reply([message("Hello again.")])],
  },
];

export const scenarios = {
  plain: {
    about: "two plain text turns (the second a resume)",
    steps: [
      { prompt: "Say hello.", replies: [reply([message("Hello! How can I help?")])] },
      { prompt: "Say it again.", resume: true, replies: [reply([message("Hello again.")])] },
    ],
  },
  tool: {
    about: "reasoning(encrypted) + text + exec_command `echo hi`; output stored; reasoning + text; then resume",
    keepAfter: false,
    steps: [toolTurn(), resumeStep()],
  },
  "killed-mid-call": {
    loop: true,
    smoke: true,
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
    loop: true,
    about: "`tool`, then the last line of the rollout cut in the middle (no final newline); then resume",
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
        const last = lines[lines.length - 1];
        const keep = Math.floor(last.length / 2);
        const t = parseLine(last);
        lines[lines.length - 1] = last.slice(0, keep);
        return {
          lines,
          noFinalNewline: true,
          note: `last line (${t?.type}${t?.payload?.type ? "/" + t.payload.type : ""}, ${Buffer.byteLength(last)} bytes) cut to its first ${keep} characters, no final newline`,
        };
      }),
    ],
  },
  "nul-line": {
    loop: true,
    about: "`tool`, then the function_call_output line overwritten with NUL bytes of the same byte length (newline kept); then resume",
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
        const i = findLine(lines, "function_call_output");
        const n = Buffer.byteLength(lines[i]);
        lines[i] = "\0".repeat(n);
        return { lines, note: `line ${i + 1} (response_item function_call_output, ${n} bytes) replaced by ${n} NUL bytes` };
      }),
    ],
  },
  // Issue 40, row 16's audit (docs/research/severity-audit.md): a lone UTF-16 surrogate in a stored tool output (the
  // shape of anthropics/claude-code#68325, here in a rollout). What Codex reads and sends for it decides whether
  // corrupted-tool-output is an error on Codex.
  "output-surrogate": {
    about: "`tool`, then the function_call_output's output given a lone high surrogate (\\ud83d escaped, line re-serialized); then resume",
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
        const i = findLine(lines, "function_call_output");
        const value = JSON.parse(lines[i]);
        value.payload.output = `${value.payload.output}\ud83d`;
        lines[i] = JSON.stringify(value);
        return { lines, note: `line ${i + 1} (response_item function_call_output): its output ends in a lone high surrogate` };
      }),
    ],
  },
  // Issue 40, row 16's audit: two calls the API gave one call_id, each answered. What Codex sends for them decides
  // duplicate-tool-call-id's severity on Codex (the API's answer to it is not known offline).
  "reused-call-id": {
    about: "`tool`, then a resumed second `tool` turn whose call the API gives the same call_id (call_mock_echo_01); then resume",
    steps: [toolTurn(), { ...toolTurn("Run `echo hi` again."), resume: true }, resumeStep()],
  },
  "duplicate-output": {
    loop: true,
    about: "`tool`, then the function_call_output line duplicated (the copy right after it); resume; mock answers 400 Duplicate item",
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
        const i = findLine(lines, "function_call_output");
        lines.splice(i + 1, 0, lines[i]);
        return { lines, note: `line ${i + 1} (response_item function_call_output) duplicated as line ${i + 2}` };
      }),
    ],
  },
  "bad-reasoning": {
    // The API still cannot verify those reasoning items after the repair: the continuation refuses any of them.
    loop: {
      reply: (body, _entry, ctx) => {
        const bad = (body.input ?? []).find((it) => it.type === "reasoning" && ctx.unverifiable?.has(it.encrypted_content));
        return bad ? refuseReasoning(bad.encrypted_content) : reply([message("Continuing.")]);
      },
    },
    about: "`tool`, then resume; the mock answers the resume 400 invalid_encrypted_content (as the API does when a stored reasoning item no longer verifies)",
    steps: [
      toolTurn(),
      {
        prompt: "Thanks.",
        resume: true,
        replies: [
          (body, _entry, ctx) => {
            const rs = body.input.find((it) => it.type === "reasoning");
            const enc = rs?.encrypted_content ?? "gAAAA";
            ctx.unverifiable = new Set(body.input.filter((it) => it.type === "reasoning").map((it) => it.encrypted_content));
            return refuseReasoning(enc);
          },
        ],
      },
    ],
  },
  "empty-call-id": {
    loop: true,
    about: `\`tool\`, then call_id of the function_call and of its function_call_output set to "" (response_item lines only); resume; mock answers 400 Invalid 'input[N].call_id': empty string.`,
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
        const done = [];
        for (const type of ["function_call", "function_call_output"]) {
          const i = findLine(lines, type);
          const o = parseLine(lines[i]);
          const was = o.payload.call_id;
          o.payload.call_id = "";
          lines[i] = JSON.stringify(o);
          done.push(`line ${i + 1} (${type}) call_id ${JSON.stringify(was)} -> ""`);
        }
        return { lines, note: done.join("; ") + " (line re-serialized with JSON.stringify; other lines untouched)" };
      }),
    ],
  },
  "orphan-output": {
    loop: true,
    about: "`tool`, then the response_item function_call line removed, so its output answers no call; resume; mock answers 400 No tool call found",
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
        const i = findLine(lines, "function_call");
        const id = parseLine(lines[i]).payload.call_id;
        lines.splice(i, 1);
        return { lines, note: `line ${i + 1} (response_item function_call, call_id ${id}) deleted` };
      }),
    ],
  },
  "huge-output": {
    about: "exec_command `seq -w 1 33334` (200004 bytes of output, max_output_tokens 100000); text; then resume: how is the output stored and cut?",
    cutFixture: true,
    keepAfter: false,
    steps: [seqTurn, resumeStep()],
  },
  "huge-output-stored": {
    about:
      "as huge-output, then the stored function_call_output's output replaced by the whole 200004-character output of `seq -w 1 33334` (what an uncut store would hold); then resume: how does Codex cut it in the request?",
    cutFixture: true,
    keepAfter: false,
    steps: [
      seqTurn,
      resumeAfter((lines) => {
        const i = findLine(lines, "function_call_output");
        const o = parseLine(lines[i]);
        const was = o.payload.output.length;
        o.payload.output = Array.from({ length: 33334 }, (_, k) => String(k + 1).padStart(5, "0") + "\n").join("");
        lines[i] = JSON.stringify(o);
        return {
          lines,
          note: `line ${i + 1} (function_call_output): output (${was} characters as stored by the client) replaced by the full seq -w 1 33334 output (${o.payload.output.length} characters, "00001\\n" … "33334\\n")`,
        };
      }),
    ],
  },
  "torn-output": {
    loop: true,
    about:
      "`tool`, then the file cut in the middle of the function_call_output line (that line torn, every later line gone; no final newline), as if the writer died mid-line; then resume",
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
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
        replies: [reply([message("Hello again.")])],
        edit: (ctx) => {
          const { codexHome } = ctx.sandbox;
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
  "tail-no-ordinal": {
    loop: true,
    about:
      "`tool`, then the `ordinal` taken off the rollout's last line (re-serialized), as a writer that does not number its lines leaves it; resume: Codex refuses the session (final paginated rollout record … is missing an ordinal)",
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
        const i = lines.length - 1;
        const o = parseLine(lines[i]);
        const was = o.ordinal;
        delete o.ordinal;
        lines[i] = JSON.stringify(o);
        return {
          lines,
          note: `line ${i + 1} (${o.type}/${o.payload?.type}): "ordinal":${was} taken off (line re-serialized with JSON.stringify; other lines untouched)`,
        };
      }),
    ],
  },
  "duplicate-ordinal": {
    loop: true,
    about:
      "`tool`, then the last line given the ordinal of the line before it (the shape of openai/codex#41657: a thread_settings_applied reusing a token_count's number); resume: Codex 0.154+ skips it in its projection and resumes",
    steps: [
      toolTurn(),
      resumeAfter((lines) => {
        const i = lines.length - 1;
        const o = parseLine(lines[i]);
        const was = o.ordinal;
        o.ordinal = parseLine(lines[i - 1]).ordinal;
        lines[i] = JSON.stringify(o);
        return { lines, note: `line ${i + 1} (${o.type}/${o.payload?.type}): ordinal ${was} -> ${o.ordinal}, the ordinal of line ${i} (line re-serialized)` };
      }),
    ],
  },
  "moved-rollout": {
    about:
      "`tool`, then the rollout moved to another day folder of sessions/ (Codex's index state_5.sqlite still names the old path); resume: no rollout found for thread id …; recover sets threads.rollout_path",
    loop: true,
    steps: [
      toolTurn(),
      {
        ...resumeStep(),
        edit: (ctx) => {
          const dir = path.join(ctx.sandbox.codexHome, "sessions", "2020", "01", "01");
          fs.mkdirSync(dir, { recursive: true });
          const to = path.join(dir, path.basename(ctx.session.file));
          fs.renameSync(ctx.session.file, to);
          ctx.session.file = to;
          return `rollout moved to sessions/2020/01/01/${path.basename(to)} (bytes untouched; state_5.sqlite untouched)`;
        },
      },
    ],
  },
  compacted: {
    about:
      "`plain` first turn (the mock reports 90,000 input tokens); then resume with model_auto_compact_token_limit = 1000 in config.toml: Codex compacts before the turn (a /responses call with its compaction prompt; the mock answers a summary) and stores a `compacted` line with its replacement_history; then the limit taken out and resume again: what is sent after a compaction",
    steps: [
      ...compactingTurns,
      {
        ...resumeStep(reply([message("Third reply.")]), "Once more."),
        edit: (ctx) => {
          const file = path.join(ctx.sandbox.codexHome, "config.toml");
          fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(AUTO_COMPACT, ""));
          return `config.toml: ${AUTO_COMPACT.trim()} taken out again (rollout untouched)`;
        },
      },
    ],
  },
  "bad-compaction": {
    // The API refuses any input still holding the compaction item it cannot verify.
    loop: { reply: (body) => (holdsBadCompaction(body) ? refuseCompaction() : reply([message("Continuing.")])) },
    about:
      "`compacted`, then a compaction item (as a remote compaction returns it: type compaction, id cmp_…, encrypted_content) put first in the compacted line's replacement_history, with its entry in replacement_history_metadata (line re-serialized); resume: the mock answers 400 `The encrypted content for item cmp_34....b7bd could not be verified.` while the input holds it (openai/codex#35334)",
    steps: [
      ...compactingTurns,
      {
        prompt: "Once more.",
        resume: true,
        replies: [(body) => (holdsBadCompaction(body) ? refuseCompaction() : reply([message("Third reply.")]))],
        edit: (ctx) => {
          const file = path.join(ctx.sandbox.codexHome, "config.toml");
          fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(AUTO_COMPACT, ""));
          return editLines(ctx.session.file, (lines) => {
            const i = lines.findIndex((l) => parseLine(l)?.type === "compacted");
            const o = parseLine(lines[i]);
            // With its entry in the parallel metadata list: Codex passes over a compaction whose lists differ in length.
            o.payload.replacement_history.unshift(BAD_COMPACTION);
            o.payload.replacement_history_metadata.unshift({ history_sequence: 0, sampled_through_sequence: 0, client_authored: false });
            lines[i] = JSON.stringify(o);
            return {
              lines,
              note: `config.toml: ${AUTO_COMPACT.trim()} taken out; line ${i + 1} (compacted): ${JSON.stringify(BAD_COMPACTION)} put first in payload.replacement_history, an entry for it first in replacement_history_metadata (line re-serialized)`,
            };
          });
        },
      },
    ],
  },
};
