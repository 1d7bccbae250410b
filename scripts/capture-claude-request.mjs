#!/usr/bin/env node
// Capture what the real Claude Code client sends to the Anthropic Messages API when it continues a session.
//
// Runs the client offline in print mode against a loopback mock of the Messages API (this file), one scenario at a
// time: the first prompt(s) build a session, optional edits change the stored transcript, and a final
// `claude -p --resume <id>` continues it. Every request the client makes is logged; the first main-loop request of the
// final step is "the continuing request".
//
// Install the client (no global install, no network besides the npm registry):
//
//   npm install --prefix /tmp/cc-client @anthropic-ai/claude-code@2.1.331
//   # the postinstall (install.cjs) copies the native binary of @anthropic-ai/claude-code-linux-x64
//   # over bin/claude.exe; the engines field asks for Node >= 22 but the native binary does not use Node.
//   /tmp/cc-client/node_modules/.bin/claude --version   # 2.1.331 (Claude Code)
//
// Run one scenario:
//
//   node scripts/capture-claude-request.mjs --client /tmp/cc-client/node_modules/.bin/claude \
//        --scenario thinking --out /tmp/cc-out/thinking
//   node scripts/capture-claude-request.mjs --list            # the scenarios
//
// Options: --work <dir> (scratch root, wiped per run; default /tmp/cc-capture, kept fixed so the paths stored in the
// transcript and the system prompt are the same on every run), --model <id> (default: the scenario's, else
// claude-sonnet-4-5),
// --timeout <s> per client run (default 120), --fixtures <dir> (also write <scenario>.jsonl and
// <scenario>.request.json there, in the trimmed form kept in fixtures/claude-code-2.1/).
//
// Output in --out: requests.jsonl (every request: step, method, path, headers without credentials, body),
// step-<n>.stdout/.stderr, transcript-before-final.jsonl (the transcript as the captured step found it, after edits),
// transcript-after.jsonl, request.json (the continuing request's full body), request.trimmed.json.
//
// Enforcing mock (--enforce; the repair-* scenarios turn it on themselves): the mock then also applies these rules of
// the real Messages API and answers a request that breaks one with HTTP 400 and the API's error body
// ({"type":"error","error":{"type":"invalid_request_error","message":…},"request_id":"req_mock…"}), checked in this
// order:
//   - empty thinking: a `thinking` block (any message) whose text is empty or whitespace →
//     `messages.N.content.M.thinking: each thinking block must contain non-whitespace thinking`;
//   - blank text: a `text` block (or a string `content`) that is empty or whitespace, in any message →
//     `messages: text content blocks must contain non-whitespace text` (the API names no position);
//   - modified thinking: in the latest assistant message of `messages` only, a `thinking` block carrying a signature
//     this mock issued, with another text than the one issued with it → `messages.N.content.M: \`thinking\` or
//     \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they
//     were in the original response.`
//   - prefix binding, only when the request's `model` is one of recover's prefix-checking models
//     (src/provider/prefix-bound.ts, copied below; e.g. `--model claude-opus-5-5`): every thinking block the mock
//     issues is bound to (1) a hash of its prefix: `system`, `tools`, the request's `messages` and the blocks before
//     it in its own reply, thinking blocks left out, canonical (values only: `cache_control` dropped, keys sorted, a
//     string `content` read as the one text block it stands for), and (2) its predecessor: the thinking block before it
//     (in its reply or any earlier message), or none. A later request that carries a block with a signature the mock
//     bound is checked the same way (the messages before the block's message, the blocks before it in its own
//     message): a changed prefix, or another thinking block right before it (a block left out or moved; none before
//     it is fine: thinking stripped from the start) fails, and the FIRST failing block is named →
//     `messages.N.content.M: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation.
//     Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".` plus, when the
//     request's `anthropic-beta` lacks `thinking-binding-controls-2026-08-01` (Claude Code never sends it), ` That
//     setting requires the \`thinking-binding-controls-2026-08-01\` value in the \`anthropic-beta\` header.`
//     (../shared/reference/preserved-thinking.md §3). A request with `thinking.block_binding.prefix_mismatch_behavior:
//     "drop_block"` and that beta passes (the failing block and all later thinking left out of the new reply's binding);
//     `block_binding` without the beta → `thinking.<type>.block_binding: Extra inputs are not permitted`.
//     --bind-scope messages: bind only `messages` (not `system`/`tools`), for a client whose system prompt or tools
//     legitimately change between runs (Claude Code 2.1.197 and 2.1.331 keep both identical; not needed so far).
//     --mismatch-header: with the 400, also send `anthropic-thinking-prefix-mismatch: block=messages.N.content.M;
//     kind=prefix|predecessor`, a response header Claude Code 2.1.331 reads to strip thinking from that block on only
//     (not in Anthropic's documentation: off by default).
//   - the window (checked first), with --context-limit <tokens> or a scenario's `contextLimit`: a request of more
//     tokens (1 per 4 bytes of system + tools + messages as JSON) → `prompt is too long: N tokens > LIMIT maximum`.
// N and M are positions in the request as the client sent it. Every logged request carries the mock's answer
// (`answer`: status, rule, the error text for a 400, `why` for a binding failure).
//
// Repair loop (scenarios repair-*): build a session, damage its transcript, resume (the mock answers 400), run
// `node <recover> session repair <session> --error "<the exact 400 message>" --yes --store <CLAUDE_CONFIG_DIR>`,
// resume again (must be answered 200 with a reply). A recover step with `withError: false` runs the plain
// `session repair <session> --yes --store …` instead (the `*-plain` scenarios: right after the damage, before the
// client ever sent it). Before each repair the driver also runs the same command with `--dry-run --json` (minus --yes)
// and keeps it as step-<n>.plan.json; verdict.json gets its summary (changes by rule, `droppedThinking`, notices).
// One command per scenario:
//
//   node scripts/capture-claude-request.mjs --client /tmp/cc-client/node_modules/.bin/claude \
//        --scenario repair-thinking-modified --out /tmp/cc-out/repair-thinking-modified --enforce --recover-wait 65
//
// The repair-prefix-* scenarios (issue 36; model claude-opus-5-5 unless --model, the *-sonnet45 ones claude-sonnet-4-5)
// build one history with 7 thinking blocks over 3 turns (2 per reply, a Bash call in turn two) and damage it in
// different places; docs/research/claude-code-prefix-thinking.md has the commands and the results. The
// repair-prefix-trim* ones make an old (or the last) Bash output 120,000 characters, set the mock's window
// (`contextLimit`) and the client's DISABLE_COMPACT=1 (`clientEnv`), and their recover step (`command: "trim"`) runs
// `context trim <session> --error "<the last prompt-too-long 400>"` instead; `expectExit` on a recover step is the
// exit it must give (default 0). With --fixtures, a repair loop writes <dir>/<case>.jsonl (the transcript right before
// the first recover step, trimmed as below; <case> = the scenario without `repair-`) and <dir>/<case>.expected.json
// (the recover commands, the 400, the thinking on the chain before and after, what the final resume sent):
// fixtures/claude-code-2.1/prefix-thinking/.
//
// Options for it: --recover <path to bin/recover> (default: this repository's; its dist/main.cjs must be built),
// --skip-recover (control run: the same steps without the repair, to show whether the later resume fails without
// it), --recover-wait <s> (wait before running recover; default 0, and then recover's 60 s write guard refuses with
// exit 3). With the enforcing mock every client step that expects nothing in particular (building the session) must
// be answered 200 throughout. Extra output with the enforcing mock: step-<n>.request.trimmed.json (first main-loop
// request of each client step), transcript-step-<n>.before.jsonl / .after.jsonl (the transcript around each step,
// edits included in "before"), step-<n>.command/.plan.json/.stdout/.stderr/.exit of the recover step, verdict.json
// (pass/fail, warnings and the facts they rest on). The process exits 1 when the loop fails (not for --skip-recover).
// Findings: docs/research/claude-code-repair-loop.md, docs/research/claude-code-prefix-thinking.md.
//
// Isolation: HOME and CLAUDE_CONFIG_DIR under --work, cwd is <work>/project, ANTHROPIC_BASE_URL points at the mock on
// 127.0.0.1, telemetry / auto-update / error reporting / non-essential traffic disabled. Plain Node ESM, no
// dependencies.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { answerMessages, answeredCountTokens, readRequest, runToFiles } from "./clients/api/messages.mjs";
import { runRecoverStep, shellQuote } from "./clients/lib/recover.mjs";
import { bindReply, checkRequest, withoutThinkingFrom } from "./clients/api/messages-rules.mjs";

// ---------------------------------------------------------------------------------------------------------------
// Mock replies. A reply is a list of content blocks the mock streams back, plus a stop reason.

const text = (t) => ({ type: "text", text: t });
const thinking = (t, signature) => ({ type: "thinking", thinking: t, signature });
const toolUse = (id, name, input) => ({ type: "tool_use", id, name, input });
const reply = (blocks, stop) => ({
  blocks,
  stop: stop ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
});

// ---------------------------------------------------------------------------------------------------------------
// Transcript edits, applied between steps (to the session's .jsonl).

function readLines(file) {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}
function writeLines(file, records) {
  fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
}
function editBlocks(file, pred, fn) {
  const recs = readLines(file);
  let n = 0;
  for (const r of recs) {
    const c = r.message?.content;
    if (!Array.isArray(c)) continue;
    for (const b of c) {
      if (pred(b, r)) {
        fn(b, r);
        n++;
      }
    }
  }
  writeLines(file, recs);
  return n;
}
// Insert records after the record with uuid `afterUuid`, relinking the chain: the inserted records form a chain
// hanging from afterUuid, and the old child of afterUuid is re-parented to the last inserted record.
function insertAfter(file, afterUuid, newRecs) {
  const recs = readLines(file);
  const i = recs.findIndex((r) => r.uuid === afterUuid);
  if (i < 0) throw new Error("insertAfter: no record " + afterUuid);
  const base = recs[i];
  let parent = afterUuid;
  const made = newRecs.map((make, k) => {
    const uuid = `00000000-0000-4000-8000-${String(k + 1).padStart(12, "0")}`;
    const envelope = {
      parentUuid: parent,
      isSidechain: false,
      userType: base.userType,
      cwd: base.cwd,
      sessionId: base.sessionId,
      version: base.version,
      gitBranch: base.gitBranch,
      uuid,
      timestamp: base.timestamp,
    };
    const rec = make(envelope);
    if (rec.uuid) parent = rec.uuid;
    return rec;
  });
  for (const r of recs.slice(i + 1)) if (r.parentUuid === afterUuid) r.parentUuid = parent;
  recs.splice(i + 1, 0, ...made);
  writeLines(file, recs);
}
const lastOf = (file, pred) => readLines(file).filter(pred).at(-1);

// ---------------------------------------------------------------------------------------------------------------
// Scenarios. Each step runs the client once: { prompt, resume?: true, replies: [...main-loop replies], edit?(file, ctx) }.
// `edit` runs before the step. `project` files are created in the project dir before step 1. The captured
// ("continuing") request is the first main-loop request of step `captureStep` (default: the last step).

// The trim scenarios' window and oversized output: 120,000 characters of `seq`-like lines ("line 000001\n" …).
const TRIM_LIMIT = 36_000;
const bigOutput = (lines) => Array.from({ length: lines }, (_, i) => `line ${String(i + 1).padStart(6, "0")}`).join("\n") + "\n";
const BIG_OUTPUT = bigOutput(10_000);

const SIG = (n) => `EsMock${n}SignatureAAAABBBBCCCCDDDDeeeeffff0000111122223333==`;

const scenarios = {
  text: {
    about: "plain text turn, then resume",
    steps: [
      { prompt: "Say hello.", replies: [reply([text("Hello! How can I help?")])] },
      { prompt: "Say it again.", resume: true, replies: [reply([text("Hello again.")])] },
    ],
  },
  "claude-md": {
    about: "CLAUDE.md in the project; first prompt, then resume",
    project: { "CLAUDE.md": "# Project rules\n\nAlways answer in one short sentence.\n", "notes.txt": "alpha\nbeta\n" },
    steps: [
      { prompt: "What are the project rules?", replies: [reply([text("Answer in one short sentence.")])] },
      { prompt: "Thanks. Anything else?", resume: true, replies: [reply([text("No.")])] },
    ],
  },
  "at-file": {
    about: "@file mention in the first prompt (and a CLAUDE.md), then resume",
    project: { "CLAUDE.md": "# Project rules\n\nBe brief.\n", "notes.txt": "alpha\nbeta\ngamma\n" },
    steps: [
      { prompt: "Summarise @notes.txt please.", replies: [reply([text("Three Greek letters.")])] },
      { prompt: "And the first one?", resume: true, replies: [reply([text("alpha")])] },
    ],
  },
  "at-file-later": {
    about: "@file mention in the second prompt (not the first), then resume",
    project: { "notes.txt": "alpha\nbeta\ngamma\n" },
    steps: [
      { prompt: "Say one.", replies: [reply([text("one")])] },
      { prompt: "Summarise @notes.txt please.", resume: true, replies: [reply([text("Three Greek letters.")])] },
      { prompt: "And the first one?", resume: true, replies: [reply([text("alpha")])] },
    ],
  },
  "attachment-edited": {
    about: "CLAUDE.md + @file; stored attachments edited (rendered vs attachment payload, rendered removed), then resume",
    project: { "CLAUDE.md": "# Project rules\n\nBe brief.\n", "notes.txt": "alpha\nbeta\ngamma\n" },
    steps: [
      { prompt: "Summarise @notes.txt please.", replies: [reply([text("Three Greek letters.")])] },
      {
        prompt: "And the first one?",
        resume: true,
        replies: [reply([text("alpha")])],
        edit(file) {
          const recs = readLines(file);
          const done = [];
          for (const r of recs) {
            if (r.type !== "attachment") continue;
            const a = r.attachment;
            if (a.type === "instructions") {
              a.files[0].content = "ATTACHMENT-PAYLOAD-EDIT";
              r.rendered = [{ content: "<system-reminder>\nRENDERED-EDIT of the instructions attachment\n</system-reminder>" }];
              done.push("instructions: attachment.files[0].content and rendered[0].content both replaced by different markers");
            } else if (a.type === "date") {
              a.date = "2000-01-01";
              delete r.rendered;
              done.push("date: attachment.date set to 2000-01-01 and rendered deleted");
            } else if (a.type === "file") {
              a.content.file.content = "PAYLOAD-EDIT-1\nPAYLOAD-EDIT-2\n";
              delete r.rendered;
              delete r.renderedRole;
              done.push("file: file content set to PAYLOAD-EDIT lines, rendered and renderedRole deleted");
            } else if (a.type === "environment") {
              delete r.renderedRole;
              done.push("environment: renderedRole deleted (rendered kept)");
            } else if (a.type === "model") {
              r.renderedRole = "user";
              done.push('model: renderedRole changed "system" -> "user"');
            }
          }
          writeLines(file, recs);
          return done.join("; ");
        },
      },
    ],
  },
  thinking: {
    about: "two turns answered with signed thinking + text, then resume (are earlier thinking blocks sent?)",
    steps: [
      {
        prompt: "Think, then say one.",
        replies: [reply([thinking("First I think about one.", SIG(1)), text("one")])],
      },
      {
        prompt: "Think, then say two.",
        resume: true,
        replies: [reply([thinking("Now I think about two.", SIG(2)), text("two")])],
      },
      { prompt: "Say three.", resume: true, replies: [reply([text("three")])] },
    ],
  },
  "thinking-edited": {
    about: "signed thinking + text; the stored thinking text is edited (signature kept), then resume",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Original thought.", SIG(1)), text("one")])] },
      {
        prompt: "Say two.",
        resume: true,
        replies: [reply([text("two")])],
        edit(file) {
          const n = editBlocks(
            file,
            (b) => b.type === "thinking",
            (b) => {
              b.thinking = "EDITED thought (not what the model wrote).";
            },
          );
          return `thinking text of ${n} block(s) replaced by "EDITED thought (not what the model wrote)."; signature kept`;
        },
      },
    ],
  },
  "thinking-empty": {
    about: "two turns with signed thinking; one stored thinking text made empty, the other whitespace; then resume",
    steps: [
      { prompt: "Think, then say one.", replies: [reply([thinking("Thought one.", SIG(1)), text("one")])] },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      {
        prompt: "Say three.",
        resume: true,
        replies: [reply([text("three")])],
        edit(file) {
          let k = 0;
          editBlocks(
            file,
            (b) => b.type === "thinking",
            (b) => {
              b.thinking = k++ === 0 ? "" : "  \n ";
            },
          );
          return `first thinking block's text set to "", second's to "  \\n " (signatures kept)`;
        },
      },
    ],
  },
  "thinking-tool": {
    about: "signed thinking + tool_use (Bash), tool result, then thinking + text; then resume",
    steps: [
      {
        prompt: "Think, run `echo hi` with Bash, then tell me the output.",
        replies: [
          reply([
            thinking("I should run echo.", SIG(1)),
            text("Running it."),
            toolUse("toolu_mock_bash_01", "Bash", { command: "echo hi", description: "Print hi" }),
          ]),
          reply([thinking("The output was hi.", SIG(2)), text("It printed hi.")]),
        ],
      },
      { prompt: "Thanks.", resume: true, replies: [reply([text("You're welcome.")])] },
    ],
  },
  "tool-bash": {
    about: "text + tool_use (Bash echo hi) in one response, the result, a final text; then resume",
    steps: [
      {
        prompt: "Run `echo hi` with Bash and tell me the output.",
        replies: [
          reply([text("I'll run it."), toolUse("toolu_mock_bash_01", "Bash", { command: "echo hi", description: "Print hi" })]),
          reply([text("The output is hi.")]),
        ],
      },
      { prompt: "Thanks.", resume: true, replies: [reply([text("You're welcome.")])] },
    ],
  },
  "tool-parallel": {
    about: "two tool_use blocks in one response (Read + Bash), both results, final text; then resume",
    project: { "notes.txt": "alpha\nbeta\n" },
    steps: [
      {
        prompt: "Read notes.txt and run `echo hi`, both at once.",
        replies: [
          reply([
            text("Doing both."),
            toolUse("toolu_mock_read_01", "Read", { file_path: "/tmp/cc-capture/project/notes.txt" }),
            toolUse("toolu_mock_bash_02", "Bash", { command: "echo hi", description: "Print hi" }),
          ]),
          reply([text("notes.txt has alpha and beta; echo printed hi.")]),
        ],
      },
      { prompt: "Thanks.", resume: true, replies: [reply([text("You're welcome.")])] },
    ],
  },
  "empty-text": {
    about: 'assistant text blocks edited to "" and whitespace in the stored transcript, then resume',
    steps: [
      {
        prompt: "Run `echo hi` with Bash.",
        replies: [
          reply([text("Running."), toolUse("toolu_mock_bash_01", "Bash", { command: "echo hi", description: "Print hi" })]),
          reply([text("Done: hi.")]),
        ],
      },
      {
        prompt: "Say two.",
        resume: true,
        replies: [reply([text("two")])],
        edit(file) {
          let k = 0;
          editBlocks(
            file,
            (b, r) => r.type === "assistant" && b.type === "text",
            (b) => {
              b.text = k++ === 0 ? "" : " \n\t ";
            },
          );
          return `first stored assistant text block ("Running.") set to "", second ("Done: hi.") to " \\n\\t "`;
        },
      },
    ],
  },
  "empty-text-2": {
    about: 'two tool turns; stored texts edited: whitespace before a tool_use, "" as a turn\'s only text; two resumes (captured: the first)',
    captureStep: 3,
    steps: [
      {
        prompt: "Run `echo hi` with Bash.",
        replies: [
          reply([text("Running."), toolUse("toolu_mock_bash_01", "Bash", { command: "echo hi", description: "Print hi" })]),
          reply([text("Done: hi.")]),
        ],
      },
      {
        prompt: "Again, with `echo ho`.",
        resume: true,
        replies: [
          reply([text("Running again."), toolUse("toolu_mock_bash_02", "Bash", { command: "echo ho", description: "Print ho" })]),
          reply([text("Done: ho.")]),
        ],
      },
      {
        prompt: "Say two.",
        resume: true,
        replies: [reply([text("two")])],
        edit(file) {
          const map = { "Running.": " \n\t ", "Done: hi.": "", "Running again.": "kept", "Done: ho.": "  " };
          editBlocks(
            file,
            (b, r) => r.type === "assistant" && b.type === "text" && b.text in map,
            (b) => {
              b.text = map[b.text];
            },
          );
          return 'stored assistant texts: "Running." -> " \\n\\t " (before a tool_use), "Done: hi." -> "" (a response\'s only block, mid-conversation), "Running again." -> "kept", "Done: ho." -> "  " (the last assistant message)';
        },
      },
      { prompt: "Say three.", resume: true, replies: [reply([text("three")])] },
    ],
  },
  "merge-rules": {
    about: "planted: user text right after a tool_result line, an assistant line with another message.id after an assistant line; then resume",
    steps: [
      {
        prompt: "Run `echo hi` with Bash.",
        replies: [
          reply([text("Running."), toolUse("toolu_mock_bash_01", "Bash", { command: "echo hi", description: "Print hi" })]),
          reply([text("Done: hi.")]),
        ],
      },
      {
        prompt: "Say two.",
        resume: true,
        replies: [reply([text("two")])],
        edit(file) {
          const tr = lastOf(file, (r) => r.type === "user" && Array.isArray(r.message?.content) && r.message.content[0]?.type === "tool_result");
          insertAfter(file, tr.uuid, [
            (e) => ({ ...e, type: "user", message: { role: "user", content: "PLANTED user text right after the tool_result line." } }),
          ]);
          const done = lastOf(file, (r) => r.type === "assistant" && r.message?.content?.[0]?.text === "Done: hi.");
          insertAfter(file, done.uuid, [
            (e) => ({
              ...e,
              uuid: "00000000-0000-4000-8000-0000000000a2",
              type: "assistant",
              message: { ...done.message, id: "msg_PLANTED_other_id", content: [{ type: "text", text: "PLANTED assistant line with another message.id." }] },
            }),
            (e) => ({
              ...e,
              uuid: "00000000-0000-4000-8000-0000000000a3",
              type: "assistant",
              message: { ...done.message, content: [{ type: "text", text: "PLANTED assistant line with the first message.id again." }] },
            }),
          ]);
          return "a plain user text line inserted right after the tool_result line (before its attachments); after the last assistant line two assistant lines: one with message.id msg_PLANTED_other_id, then one with the original message.id again";
        },
      },
    ],
  },
  "meta-records": {
    about: "non-message records planted on the chain (system local_command / api_error / informational, isMeta user, summary, progress); then resume",
    steps: [
      { prompt: "Say one.", replies: [reply([text("one")])] },
      { prompt: "Say two.", resume: true, replies: [reply([text("two")])] },
      {
        prompt: "Say three.",
        resume: true,
        replies: [reply([text("three")])],
        edit(file) {
          const firstAssistant = lastOf(file, (r) => r.type === "assistant" && r.message?.content?.[0]?.text === "one");
          insertAfter(file, firstAssistant.uuid, [
            (e) => ({
              ...e,
              type: "system",
              subtype: "local_command",
              content: "<command-name>/cost</command-name>\n<command-message>cost</command-message>\n<command-args></command-args>",
              level: "info",
              isMeta: false,
            }),
            (e) => ({
              ...e,
              type: "system",
              subtype: "local_command",
              content: "<local-command-stdout>Total cost: $0.0001</local-command-stdout>",
              level: "info",
              isMeta: false,
            }),
            (e) => ({
              ...e,
              type: "user",
              isMeta: true,
              message: { role: "user", content: "<system-reminder>\nPLANTED isMeta user string content.\n</system-reminder>" },
            }),
            (e) => ({
              ...e,
              type: "user",
              isMeta: true,
              message: { role: "user", content: [{ type: "text", text: "PLANTED isMeta user array content." }] },
            }),
            (e) => ({
              ...e,
              type: "system",
              subtype: "api_error",
              level: "error",
              error: { status: 529, message: "Overloaded" },
              retryInMs: 1000,
              retryAttempt: 1,
              maxRetries: 10,
              cause: {},
            }),
            (e) => ({
              ...e,
              type: "system",
              subtype: "informational",
              content: "PLANTED informational system record.",
              level: "info",
              isMeta: false,
            }),
            (e) => ({
              ...e,
              type: "progress",
              data: { type: "hook_progress", hookEvent: "PostToolUse", hookName: "PostToolUse:Bash", command: "true" },
              toolUseID: "toolu_none",
              parentToolUseID: "toolu_none",
            }),
            (e) => ({
              ...e,
              type: "user",
              message: { role: "user", content: "PLANTED ordinary user text between assistant turns." },
            }),
          ]);
          // a summary line and a file-history-snapshot line, both off the chain (no uuid links), at the top of the file
          const recs = readLines(file);
          recs.unshift({ type: "summary", summary: "PLANTED summary line", leafUuid: firstAssistant.uuid });
          writeLines(file, recs);
          return "after the first assistant line, a chain of planted records was inserted (system local_command x2, isMeta user string, isMeta user array, system api_error, system informational, progress, plain user text), the next line re-parented to the last of them; a summary line prepended";
        },
      },
    ],
  },
  "tool-bash-big": {
    about: "Bash prints 588,895 characters (`seq 1 100000`): what the client stores and sends for a big output; then resume",
    steps: [
      {
        prompt: "Run `seq 1 100000` with Bash.",
        replies: [
          reply([text("Running."), toolUse("toolu_mock_bash_01", "Bash", { command: "seq 1 100000", description: "Print numbers" })]),
          reply([text("Done.")]),
        ],
      },
      { prompt: "Thanks.", resume: true, replies: [reply([text("You're welcome.")])] },
    ],
  },
  compact: {
    about: "a compact_boundary system record + isCompactSummary user record planted after turn two; then resume",
    steps: [
      { prompt: "Say one.", replies: [reply([text("one")])] },
      { prompt: "Say two.", resume: true, replies: [reply([text("two")])] },
      {
        prompt: "Say three.",
        resume: true,
        replies: [reply([text("three")])],
        edit(file) {
          const a2 = lastOf(file, (r) => r.type === "assistant" && r.message?.content?.[0]?.text === "two");
          const recs = readLines(file);
          const boundary = {
            parentUuid: null,
            logicalParentUuid: a2.uuid,
            isSidechain: false,
            userType: a2.userType,
            cwd: a2.cwd,
            sessionId: a2.sessionId,
            version: a2.version,
            gitBranch: a2.gitBranch,
            type: "system",
            subtype: "compact_boundary",
            content: "Conversation compacted",
            isMeta: false,
            timestamp: a2.timestamp,
            uuid: "00000000-0000-4000-8000-00000000c001",
            level: "info",
            compactMetadata: { trigger: "manual", preTokens: 1234 },
          };
          const summaryUser = {
            parentUuid: boundary.uuid,
            isSidechain: false,
            userType: a2.userType,
            cwd: a2.cwd,
            sessionId: a2.sessionId,
            version: a2.version,
            gitBranch: a2.gitBranch,
            type: "user",
            message: {
              role: "user",
              content:
                "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nPLANTED SUMMARY: the user asked for one and two.",
            },
            isVisibleInTranscriptOnly: true,
            isCompactSummary: true,
            uuid: "00000000-0000-4000-8000-00000000c002",
            timestamp: a2.timestamp,
          };
          recs.push(boundary, summaryUser);
          writeLines(file, recs);
          return "appended a system compact_boundary (parentUuid null, logicalParentUuid = last assistant) and a user isCompactSummary record after it";
        },
      },
    ],
  },
  ...repairScenarios(),
};

// Repair-loop scenarios: the step `{ recover: true }` runs recover with the text of the last 400 the mock answered.
// `expect: 400` on a client step: its first main-loop request must be answered 400 by rule `expectRule` (what the
// client does next, retries included, is recorded); `expect: 200`: every main-loop request of the step is answered 200
// and the client reports a reply (not is_error).
function repairScenarios() {
  // Set the thinking text of the stored thinking block with signature `sig` (all lines carrying it), keep the signature.
  const setThinking = (file, sig, to) =>
    editBlocks(
      file,
      (b, r) => r.type === "assistant" && b.type === "thinking" && b.signature === sig,
      (b) => {
        b.thinking = to;
      },
    );
  const emptyLoop = (atFile) => ({
    about: atFile
      ? "as repair-thinking-empty, but the first prompt has an @file mention (one extra user message before it, so N is shifted by one)"
      : "3 turns with signed thinking; turn two's stored thinking emptied; resume → 400; recover --error; resume → 200",
    enforce: true,
    project: atFile ? { "notes.txt": "alpha\nbeta\ngamma\n" } : undefined,
    steps: [
      {
        prompt: atFile ? "Think, then summarise @notes.txt in one word." : "Think, then say one.",
        replies: [reply([thinking("Thought one.", SIG(1)), text("one")])],
      },
      { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Thought two.", SIG(2)), text("two")])] },
      { prompt: "Think, then say three.", resume: true, replies: [reply([thinking("Thought three.", SIG(3)), text("three")])] },
      {
        prompt: "Say four.",
        resume: true,
        expect: 400,
        expectRule: "thinking_empty",
        replies: [reply([text("(mock: scripted reply; sent only to a request of this step that passes the rules)")])],
        edit(file) {
          const n = setThinking(file, SIG(2), "");
          return `thinking text of turn two (signature ${SIG(2).slice(0, 12)}…, ${n} line(s)) set to ""; signature kept`;
        },
      },
      { recover: true },
      { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] },
    ],
  });
  return {
    "repair-thinking-modified": {
      about: "thinking + tool_use (Bash), result, thinking + text; latest turn's stored thinking edited; resume → 400; recover --error; resume → 200",
      enforce: true,
      steps: [
        {
          prompt: "Think, run `echo hi` with Bash, then tell me the output.",
          replies: [
            reply([thinking("I should run echo.", SIG(1)), toolUse("toolu_mock_bash_01", "Bash", { command: "echo hi", description: "Print hi" })]),
            reply([thinking("The output was hi.", SIG(2)), text("It printed hi.")]),
          ],
        },
        {
          prompt: "Thanks. Anything else?",
          resume: true,
          expect: 400,
          expectRule: "thinking_modified",
          replies: [reply([text("(mock: scripted reply; sent only to a request of this step that passes the rules)")])],
          edit(file) {
            const n = setThinking(file, SIG(2), "EDITED thought (not what the model wrote).");
            return `thinking text of the latest assistant turn (signature ${SIG(2).slice(0, 12)}…, ${n} line(s)) set to "EDITED thought (not what the model wrote)."; signature kept`;
          },
        },
        { recover: true },
        { prompt: "Are you back?", resume: true, expect: 200, replies: [reply([text("Yes, back.")])] },
      ],
    },
    "repair-thinking-empty": emptyLoop(false),
    "repair-thinking-empty-at-file": emptyLoop(true),
    ...prefixScenarios(),
  };
}

// Remove the chain records `pred` picks; each child of a removed record is re-parented to that record's parent.
function deleteRecords(file, pred) {
  const recs = readLines(file);
  const gone = new Map(recs.filter(pred).map((r) => [r.uuid, r.parentUuid]));
  const up = (u) => {
    while (gone.has(u)) u = gone.get(u);
    return u;
  };
  const kept = recs.filter((r) => !gone.has(r.uuid));
  for (const r of kept) if (gone.has(r.parentUuid)) r.parentUuid = up(r.parentUuid);
  writeLines(file, kept);
  return gone.size;
}

// Prefix-bound thinking (issue 36): sessions on a model of recover's table whose replies carry several thinking blocks
// over several turns; the enforcing mock binds each to its prefix. One history, damaged in different places.
function prefixScenarios() {
  const filler = reply([text("(mock: scripted reply; sent only to a request of this step that passes the rules)")]);
  const bash = (id, command) => toolUse(id, "Bash", { command, description: `Run ${command}` });
  // Steps 1-3: 2 + 3 + 2 = 7 thinking blocks in 4 replies; step 2 runs `echo hi` with Bash.
  const build = [
    {
      prompt: "Think twice, then say one.",
      replies: [reply([thinking("First thought about one.", SIG(11)), thinking("Second thought about one.", SIG(12)), text("one")])],
    },
    {
      prompt: "Think, run `echo hi` with Bash, then tell me the output.",
      resume: true,
      replies: [
        reply([thinking("I should run echo.", SIG(21)), text("Running it."), bash("toolu_mock_bash_01", "echo hi")]),
        reply([thinking("The output was hi.", SIG(22)), thinking("That is all it printed.", SIG(23)), text("It printed hi.")]),
      ],
    },
    {
      prompt: "Think twice, then say three.",
      resume: true,
      replies: [reply([thinking("First thought about three.", SIG(31)), thinking("Second thought about three.", SIG(32)), text("three")])],
    },
  ];
  // Step 4 for the tail scenarios: a tool turn, interrupted before its result (2 more thinking blocks, 9 in all).
  const tailTurn = {
    prompt: "Think, run `echo ho` with Bash, then tell me the output.",
    resume: true,
    replies: [
      reply([thinking("I should run echo ho.", SIG(41)), bash("toolu_mock_bash_02", "echo ho")]),
      reply([thinking("The output was ho.", SIG(42)), text("It printed ho.")]),
    ],
  };
  const isAssistantText = (t) => (r) => r.type === "assistant" && r.message?.content?.some((b) => b.type === "text" && b.text === t);
  const blankOne = (file) => {
    const n = editBlocks(
      file,
      (b, r) => r.type === "assistant" && b.type === "text" && b.text === "one",
      (b) => {
        b.text = " \n ";
      },
    );
    return `turn one's assistant text "one" (${n} line) set to " \\n " (its two thinking blocks kept)`;
  };
  const blankPrompt = (file) => {
    const n = editBlocks(
      file,
      (b, r) => r.type === "user" && b.type === "text" && b.text.startsWith("Think, run `echo hi`"),
      (b) => {
        b.text = "  ";
      },
    );
    const recs = readLines(file);
    let m = 0;
    for (const r of recs)
      if (r.type === "user" && typeof r.message?.content === "string" && r.message.content.startsWith("Think, run `echo hi`")) {
        r.message.content = "  ";
        m++;
      }
    writeLines(file, recs);
    return `turn two's user prompt ("Think, run \`echo hi\`…"; ${n + m} line) set to "  "`;
  };
  // The result of a Bash call: its user line, gone (and, for a crash mid-tool, the reply after it).
  const isResultOf = (id) => (r) =>
    r.type === "user" && Array.isArray(r.message?.content) && r.message.content.some((b) => b.type === "tool_result" && b.tool_use_id === id);
  const dropResult = (id) => (file) => `the tool_result line of ${id} removed (${deleteRecords(file, isResultOf(id))} line), its child re-parented`;
  const crashMidTool = (id, replyText) => (file) => {
    const recs = readLines(file);
    const result = recs.find(isResultOf(id));
    const replyId = recs.find(isAssistantText(replyText))?.message.id;
    const n = deleteRecords(
      file,
      (r) => (result && (r.uuid === result.uuid || r.parentUuid === result.uuid)) || (replyId && r.type === "assistant" && r.message?.id === replyId),
    );
    // what is left after the tool_use: nothing on the chain (the session ends on the unanswered call)
    return `crash while ${id} ran: its tool_result line and the reply after it (${n} lines) removed; the session ends on the unanswered call`;
  };
  // An old tool output made oversized (a store edit: the client itself stores at most a preview, see below).
  const oversize =
    (id, output = BIG_OUTPUT) =>
    (file) => {
      const recs = readLines(file);
      let n = 0;
      for (const r of recs)
        if (isResultOf(id)(r))
          for (const b of r.message.content)
            if (b.type === "tool_result" && b.tool_use_id === id) {
              b.content = output;
              n++;
            }
      writeLines(file, recs);
      return `the tool_result of ${id} (${n} line) set to ${output.length} characters (seq-like lines); toolUseResult left as the client wrote it`;
    };
  const trimLoop = (about, { model = "claude-opus-5-5", compact = false, limit = TRIM_LIMIT, output = BIG_OUTPUT } = {}) => ({
    about,
    enforce: true,
    model,
    contextLimit: limit,
    // Without DISABLE_COMPACT the client answers `prompt is too long` by compacting the session itself (scenario
    // repair-prefix-trim-autocompact); with it the session is dead until trimmed.
    ...(compact ? {} : { clientEnv: { DISABLE_COMPACT: "1" } }),
    steps: [
      ...build,
      { prompt: "Say four.", resume: true, expect: 400, expectRule: "prompt_too_long", replies: [filler], edit: oversize("toolu_mock_bash_01", output) },
      { recover: true, command: "trim" },
      { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] },
    ],
  });
  const trimTail = (about, recoverSteps) => ({
    about,
    enforce: true,
    model: "claude-opus-5-5",
    contextLimit: TRIM_LIMIT,
    clientEnv: { DISABLE_COMPACT: "1" },
    steps: [
      ...build,
      {
        prompt: "Think, run `echo ho` with Bash, then tell me the output.",
        resume: true,
        replies: [
          reply([thinking("I should run echo ho.", SIG(41)), text("Running it."), bash("toolu_mock_bash_02", "echo ho")]),
          reply([text("It printed ho.")]),
        ],
      },
      { prompt: "Say five.", resume: true, expect: 400, expectRule: "prompt_too_long", replies: [filler], edit: oversize("toolu_mock_bash_02") },
      ...recoverSteps,
      { prompt: "Say six.", resume: true, expect: 200, replies: [reply([text("six")])] },
    ],
  });
  const loop = (about, edit, { model = "claude-opus-5-5", rule = "thinking_bound", more = [] } = {}) => ({
    about,
    enforce: true,
    model,
    steps: [
      ...build,
      ...more,
      { prompt: "Say four.", resume: true, expect: 400, expectRule: rule, replies: [filler], edit },
      { recover: true },
      { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] },
    ],
  });
  const plain = (about, edit, { model = "claude-opus-5-5", more = [] } = {}) => ({
    about,
    enforce: true,
    model,
    steps: [
      ...build,
      ...more,
      { recover: true, withError: false, before: edit },
      { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] },
    ],
  });
  return {
    "repair-prefix-blank-text": loop(
      "opus-5-5, 7 thinking blocks over 3 turns; turn one's text made whitespace; resume → 400; recover --error; resume → 200",
      blankOne,
    ),
    "repair-prefix-blank-text-plain": plain(
      "as repair-prefix-blank-text, but recover runs without --error before the client sends the damaged history",
      blankOne,
    ),
    "repair-prefix-blank-prompt": loop(
      "opus-5-5; turn two's user prompt made whitespace; resume → 400 (whitespace text); recover --error; resume → 200",
      blankPrompt,
      { rule: "text_blank" },
    ),
    "repair-prefix-blank-prompt-plain": plain("as repair-prefix-blank-prompt, recover without --error before the client sends it", blankPrompt),
    "repair-prefix-interrupted": loop(
      "opus-5-5; turn two's Bash call loses its tool_result (later turns kept); resume → 400; recover --error; resume → 200",
      dropResult("toolu_mock_bash_01"),
    ),
    "repair-prefix-interrupted-plain": plain(
      "as repair-prefix-interrupted, recover without --error before the client sends the damaged history",
      dropResult("toolu_mock_bash_01"),
    ),
    "repair-prefix-interrupted-tail": {
      about:
        "opus-5-5; a 4th turn's Bash call interrupted (crash mid-tool: no result, no reply); recover without --error; resume → 200 with all 8 earlier thinking blocks",
      enforce: true,
      model: "claude-opus-5-5",
      steps: [
        ...build,
        tailTurn,
        { recover: true, withError: false, before: crashMidTool("toolu_mock_bash_02", "It printed ho.") },
        { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] },
      ],
    },
    // recover leaves a last turn written in the last 10 minutes alone unless told (--include-live).
    "repair-prefix-interrupted-tail-live": {
      about: "as repair-prefix-interrupted-tail, recover with --include-live (so that it judges the interrupted last turn)",
      enforce: true,
      model: "claude-opus-5-5",
      steps: [
        ...build,
        tailTurn,
        { recover: true, withError: false, args: ["--include-live"], before: crashMidTool("toolu_mock_bash_02", "It printed ho.") },
        { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] },
      ],
    },
    "repair-prefix-interrupted-continued": {
      about:
        "opus-5-5; the 4th turn's Bash call interrupted (crash mid-tool), the client resumes on it (turn 5, 2 thinking blocks), then recover without --error; resume → 200",
      enforce: true,
      model: "claude-opus-5-5",
      steps: [
        ...build,
        tailTurn,
        {
          prompt: "Think twice, then say five.",
          resume: true,
          edit: crashMidTool("toolu_mock_bash_02", "It printed ho."),
          replies: [reply([thinking("First thought about five.", SIG(51)), thinking("Second thought about five.", SIG(52)), text("five")])],
        },
        { recover: true, withError: false },
        { prompt: "Say six.", resume: true, expect: 200, replies: [reply([text("six")])] },
      ],
    },
    // No 400 to give --error here: the client drops the blank text itself, and nothing binds the thinking.
    "repair-prefix-blank-text-sonnet45": plain("as repair-prefix-blank-text-plain on claude-sonnet-4-5 (no prefix binding): thinking is kept", blankOne, {
      model: "claude-sonnet-4-5",
    }),
    "repair-prefix-blank-prompt-sonnet45-plain": plain(
      "as repair-prefix-blank-prompt-plain on claude-sonnet-4-5 (no prefix binding): thinking is kept",
      blankPrompt,
      {
        model: "claude-sonnet-4-5",
      },
    ),
    // Not damage: the model itself answered turn one with thinking and a whitespace-only text (it happens: "\n\n").
    // The client never sends that message (thinking-only once the blank text is gone), so every later block was
    // made without it; a repair has nothing to change in the request and no thinking to drop.
    "repair-prefix-blank-reply": {
      about:
        "opus-5-5; turn one's reply is thinking x2 + a whitespace-only text (as the model sent it), then 2 more turns; recover without --error; resume → 200",
      enforce: true,
      model: "claude-opus-5-5",
      steps: [
        {
          prompt: "Think twice, then say nothing.",
          replies: [reply([thinking("First thought about nothing.", SIG(11)), thinking("Second thought about nothing.", SIG(12)), text(" \n ")])],
        },
        ...build.slice(1),
        { recover: true, withError: false },
        { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] },
      ],
    },
    "repair-prefix-blank-prompt-sonnet45": loop("as repair-prefix-blank-prompt on claude-sonnet-4-5 (no prefix binding): thinking is kept", blankPrompt, {
      model: "claude-sonnet-4-5",
      rule: "text_blank",
    }),
    // Context trim (issue 36): an old tool output over the window. Claude Code never stores a big Bash output itself
    // (over ~30,000 characters it saves the output to tool-results/<id>.txt and stores a 2 KB `<persisted-output>`
    // preview: scenario tool-bash-big), so the oversized output is a store edit: turn two's `hi` becomes 120,000
    // characters (the tool_result line's message content; its toolUseResult bookkeeping is left alone). The mock's
    // window (36,000 tokens of system + tools + messages) lets every building step through (~12,600 tokens with
    // 2.1.331, ~20,000 with 2.1.197) and refuses the resume (~43,000 / ~51,000).
    "repair-prefix-trim": trimLoop(
      "opus-5-5; turn two's Bash output made 120,000 characters; resume → 400 prompt is too long; recover context trim --error; resume → 200",
    ),
    "repair-prefix-trim-autocompact": trimLoop(
      "as repair-prefix-trim without DISABLE_COMPACT: the client compacts the session itself on the 400 (run it with --skip-recover)",
      { compact: true },
    ),
    // On claude-sonnet-4-5, 2.1.197 sends ~27,000 tokens of system + tools (2.1.331: ~9,700), which recover cannot see
    // (the mock stores no real usage to calibrate against): a larger window and output, so that the trim recover
    // plans from the messages alone also fits the mock's count.
    "repair-prefix-trim-sonnet45": trimLoop(
      "as repair-prefix-trim on claude-sonnet-4-5 (no prefix binding), window 46,000, output 240,000 characters: thinking is kept",
      {
        model: "claude-sonnet-4-5",
        limit: 46_000,
        output: bigOutput(20_000),
      },
    ),
    // The oversized output in the last turn, after every thinking block: turn four runs `echo ho` after its only
    // thinking block (D1) and answers with text alone. Its tool call and result are in the last 2 steps, which trim
    // keeps byte-identical by default: the first trim has nothing it may take and says what would fit (exit 1); the
    // second gives up the intact steps (--keep-steps 0) as that advice says.
    "repair-prefix-trim-tail": trimTail(
      "opus-5-5; a 4th turn [D1, Bash echo ho] → result → text; its output made 120,000 characters; resume → 400; context trim (exit 1: intact), then --keep-steps 0; resume → 200",
      [
        { recover: true, command: "trim", expectExit: 1 },
        { recover: true, command: "trim", args: ["--keep-steps", "0"] },
      ],
    ),
    // The advice of the first trim above, run directly.
    "repair-prefix-trim-tail-keep0": trimTail("as repair-prefix-trim-tail, but only the trim with --keep-steps 0", [
      { recover: true, command: "trim", args: ["--keep-steps", "0"] },
    ]),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The mock Messages API.

function isMainLoop(body) {
  // The agent loop sends the tool list; side requests (title, quota, classifiers) do not.
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

function answerError(res, status, type, message, requestId, extraHeaders = {}) {
  res.writeHead(status, { "content-type": "application/json", "request-id": requestId, ...extraHeaders });
  res.end(JSON.stringify({ type: "error", error: { type, message }, request_id: requestId }));
}

function startMock(state) {
  const server = http.createServer(async (req, res) => {
    const { body, headers } = await readRequest(req);
    const main = req.method === "POST" && req.url.startsWith("/v1/messages") && !req.url.includes("count_tokens") && isMainLoop(body);
    const entry = { seq: state.seq++, step: state.step, main, method: req.method, path: req.url, headers, body };
    const messagesCall = req.method === "POST" && req.url.startsWith("/v1/messages") && !req.url.startsWith("/v1/messages/count_tokens");
    const binding = state.enforce && messagesCall ? { bound: state.bound, headers, scope: state.bindScope, contextLimit: state.contextLimit } : {};
    let broken = state.enforce && messagesCall ? checkRequest(body, state.issued, binding) : null;
    let dropped = null;
    if (broken?.dropped) {
      dropped = broken.dropped;
      broken = null;
    }
    if (state.enforce)
      entry.answer = broken
        ? { status: 400, rule: broken.rule, message: broken.message, ...(broken.why ? { why: broken.why } : {}) }
        : { status: 200, ...(dropped ? { droppedThinkingFrom: dropped.at, why: dropped.why } : {}) };
    fs.appendFileSync(state.log, JSON.stringify(entry) + "\n");

    if (answeredCountTokens(req, res)) return;
    if (broken) {
      state.errors.push({ seq: entry.seq, step: state.step, main, ...broken });
      state.answers.push({ seq: entry.seq, step: state.step, main, status: 400, rule: broken.rule, message: broken.message });
      // --mismatch-header: also the response header Claude Code 2.1.331 reads to strip from the named block only
      // (`anthropic-thinking-prefix-mismatch: block=messages.N.content.M; kind=…`; not in Anthropic's documentation).
      const extra =
        state.mismatchHeader && broken.rule === "thinking_bound"
          ? { "anthropic-thinking-prefix-mismatch": `block=${broken.message.split(":")[0]}; kind=${broken.why}` }
          : {};
      answerError(res, 400, "invalid_request_error", broken.message, `req_mock${String(entry.seq).padStart(4, "0")}${"e".repeat(20)}`, extra);
      return;
    }
    if (req.method === "POST" && req.url.startsWith("/v1/messages")) {
      let r;
      if (main) r = state.replies.shift() ?? reply([text("(mock: no more scripted replies)")]);
      else r = reply([text("ok")]);
      for (const b of r.blocks) if (b.type === "thinking") state.issued.set(b.signature, b.thinking);
      // drop_block: the failing block and every later thinking block are left out before the model sees them.
      if (state.enforce) bindReply(dropped ? withoutThinkingFrom(body, dropped.at) : body, r.blocks, state.bound, state.bindScope);
      state.answers.push({ seq: entry.seq, step: state.step, main, status: 200, ...(dropped ? { droppedThinkingFrom: dropped.at } : {}) });
      answerMessages(res, body, r);
      return;
    }
    // anything else: harmless empty JSON
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// ---------------------------------------------------------------------------------------------------------------
// Driver.

function parseArgs(argv) {
  const a = { work: "/tmp/cc-capture", timeout: 120 };
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
    else if (k === "--bind-scope") a.bindScope = v();
    else if (k === "--mismatch-header") a.mismatchHeader = true;
    else if (k === "--context-limit") a.contextLimit = Number(v());
    else throw new Error("unknown argument " + k);
  }
  return a;
}

function findTranscript(configDir, sessionId) {
  const root = path.join(configDir, "projects");
  const stack = [root];
  while (stack.length) {
    const d = stack.pop();
    if (!fs.existsSync(d)) continue;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name === `${sessionId}.jsonl`) return p;
    }
  }
  return null;
}

// The fixture form of a request body: everything but `tools` (names only) and a very long system prompt text.
export function trimRequest(body) {
  const out = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === "tools") out.tools = v.map((t) => t.name);
    else if (k === "system" && Array.isArray(v))
      out.system = v.map((b) =>
        b.type === "text" && b.text.length > 4000
          ? { ...b, text: b.text.slice(0, 1500) + `\n[... ${b.text.length - 3000} characters cut by capture-claude-request.mjs ...]\n` + b.text.slice(-1500) }
          : b,
      );
    else out[k] = v;
  }
  return out;
}

// The fixture form of a transcript: the lines as the client wrote them, except two kinds of bookkeeping record that
// repeat the whole system prompt and tool schemas (~100 KB per turn) and never become message content:
// `attachment` records of type `prompt_snapshot` (attachment.systemPrompt joined and cut, attachment.tools reduced to names), `api-request-shape`
// records (shape.system texts cut, shape.tools reduced to names) and `api-request-blob` records (the client's own copy
// of a sent user message: long text blocks cut). Every other line is byte for byte the original.
const CUT = (s) => (typeof s === "string" && s.length > 600 ? s.slice(0, 300) + `[... ${s.length - 300} characters cut by capture-claude-request.mjs ...]` : s);
export function trimTranscript(textIn) {
  return textIn
    .split("\n")
    .map((line) => {
      if (!line.trim()) return line;
      let r;
      try {
        r = JSON.parse(line);
      } catch {
        return line;
      }
      if (r.type === "attachment" && r.attachment?.type === "prompt_snapshot" && Array.isArray(r.attachment.systemPrompt)) {
        const all = r.attachment.systemPrompt.join("");
        if (all.length > 600) r.attachment.systemPrompt = [CUT(all)];
        if (Array.isArray(r.attachment.tools))
          r.attachment.tools = r.attachment.tools.map((t) => ({ name: t.name, "[cut]": "schema cut by capture-claude-request.mjs" }));
        return JSON.stringify(r);
      }
      if (r.type === "api-request-blob" && Array.isArray(r.message?.content)) {
        r.message.content = r.message.content.map((b) => (b.type === "text" ? { ...b, text: CUT(b.text) } : b));
        return JSON.stringify(r);
      }
      if (r.type === "api-request-shape" && r.shape) {
        if (Array.isArray(r.shape.system)) r.shape.system = r.shape.system.map((b) => ({ ...b, text: CUT(b.text) }));
        if (Array.isArray(r.shape.tools)) r.shape.tools = r.shape.tools.map((t) => ({ name: t.name, "[cut]": "schema cut by capture-claude-request.mjs" }));
        return JSON.stringify(r);
      }
      return line;
    })
    .join("\n");
}

// The signatures of the thinking blocks on a transcript's chain (from its last user/assistant line up), in order.
export function chainThinking(textIn) {
  const recs = textIn
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
  const byUuid = new Map(recs.filter((r) => r.uuid).map((r) => [r.uuid, r]));
  const leaf = recs.filter((r) => r.uuid && !r.isSidechain && (r.type === "user" || r.type === "assistant")).at(-1);
  const chain = [];
  for (let r = leaf, seen = new Set(); r && !seen.has(r.uuid); r = byUuid.get(r.parentUuid)) {
    seen.add(r.uuid);
    chain.unshift(r);
  }
  return chain.flatMap((r) =>
    r.type === "assistant" && Array.isArray(r.message?.content)
      ? r.message.content.filter((b) => b.type === "thinking" || b.type === "redacted_thinking").map((b) => b.signature ?? b.data)
      : [],
  );
}

// --fixtures on a repair loop: the transcript as the client left it right before recover first ran
// (fixtures/claude-code-2.1/prefix-<case>.jsonl, in the trimmed form) and what the real loop showed
// (prefix-<case>.expected.json: the recover commands, the 400, the thinking kept on the chain after the last recover
// step, how many the plans dropped, what the final request sent and how the mock answered it).
function writeLoopFixture(args, scenario, out, recs, verdict, finalBody) {
  const name = args.scenario.replace(/^repair-/, "");
  const first = recs[0];
  const last = recs.at(-1);
  const before = fs.readFileSync(path.join(out, `transcript-step-${first.step}.before.jsonl`), "utf8");
  const after = fs.readFileSync(path.join(out, `transcript-step-${last.step}.after.jsonl`), "utf8");
  const version = /"version":"([^"]+)"/.exec(before)?.[1];
  const thinkingBefore = chainThinking(before);
  const keptThinking = chainThinking(after);
  const expected = {
    scenario: args.scenario,
    about: scenario.about,
    client: version,
    sessionId: verdict.sessionId,
    model: args.model,
    // What ran, in order; `args` is the argv after `recover` without `--store <CLAUDE_CONFIG_DIR>`.
    recover: recs.map((r) => ({
      command: `recover ${r.argv.slice(0, -2).map(shellQuote).join(" ")} --store <CLAUDE_CONFIG_DIR>`,
      args: r.argv.slice(0, -2),
      exit: r.exit,
      droppedThinking: r.plan?.droppedThinking ?? null,
      rules: r.plan?.rules ?? null,
    })),
    error: first.error ?? null,
    thinkingBefore,
    keptThinking,
    dropped: thinkingBefore.filter((s) => !keptThinking.includes(s)).length,
    sentAfter: (finalBody.messages ?? []).flatMap((m) =>
      Array.isArray(m.content) ? m.content.filter((b) => b.type === "thinking" || b.type === "redacted_thinking").map((b) => b.signature ?? b.data) : [],
    ),
    finalAnswers: verdict.finalAnswers.map((a) => a.status),
  };
  fs.mkdirSync(args.fixtures, { recursive: true });
  fs.writeFileSync(path.join(args.fixtures, `${name}.jsonl`), trimTranscript(before));
  fs.writeFileSync(path.join(args.fixtures, `${name}.expected.json`), JSON.stringify(expected, null, 2) + "\n");
}

// The chain records (those with a uuid) one transcript snapshot has and the other has not, or has changed, in short.
function describeRecord(r) {
  const c = r.message?.content;
  const what =
    r.type === "attachment"
      ? `attachment ${r.attachment?.type}${r.attachment?.scope ? " scope " + r.attachment.scope : ""}`
      : `${r.type}${r.message?.model === "<synthetic>" ? " <synthetic>" : ""}${r.isApiErrorMessage ? " isApiErrorMessage" : ""} ${short(
          typeof c === "string"
            ? JSON.stringify(c)
            : JSON.stringify((c ?? []).map((b) => (b.type === "text" ? b.text : b.type === "thinking" ? `thinking:${JSON.stringify(b.thinking)}` : b.type))),
        )}`;
  return `${r.uuid.slice(0, 8)} ${what}`;
}
function chainDiff(beforeFile, afterFile) {
  if (!fs.existsSync(beforeFile) || !fs.existsSync(afterFile)) return null;
  const index = (f) =>
    new Map(
      readLines(f)
        .filter((r) => r.uuid)
        .map((r) => [r.uuid, r]),
    );
  const a = index(beforeFile);
  const b = index(afterFile);
  const added = [...b.values()].filter((r) => !a.has(r.uuid)).map(describeRecord);
  const removed = [...a.values()].filter((r) => !b.has(r.uuid)).map(describeRecord);
  const changed = [...b.values()]
    .filter((r) => a.has(r.uuid) && JSON.stringify(a.get(r.uuid)) !== JSON.stringify(r))
    .map((r) => {
      const o = a.get(r.uuid);
      const keys = [...new Set([...Object.keys(o), ...Object.keys(r)])].filter((k) => JSON.stringify(o[k]) !== JSON.stringify(r[k]));
      return `${describeRecord(r)} (changed: ${keys.join(", ")})`;
    });
  return { added, removed, changed };
}

// What a request sent for its thinking blocks and its latest assistant message (for the repair-loop report).
const short = (t) => (typeof t === "string" && t.length > 80 ? t.slice(0, 77) + "..." : t);
function requestSummary(body) {
  const msgs = body?.messages ?? [];
  const thinkingBlocks = [];
  let latest = -1;
  for (const [n, msg] of msgs.entries()) {
    if (msg.role === "assistant") latest = n;
    if (!Array.isArray(msg.content)) continue;
    for (const [m, b] of msg.content.entries())
      if (b.type === "thinking" || b.type === "redacted_thinking")
        thinkingBlocks.push({ at: `messages.${n}.content.${m}`, type: b.type, thinking: b.thinking, signature: short(b.signature) });
  }
  const brief = (b) =>
    b.type === "thinking"
      ? { type: b.type, thinking: b.thinking, signature: short(b.signature) }
      : b.type === "text"
        ? { type: b.type, text: short(b.text) }
        : b.type === "tool_use"
          ? { type: b.type, id: b.id, name: b.name }
          : b.type === "tool_result"
            ? { type: b.type, tool_use_id: b.tool_use_id }
            : { type: b.type };
  return {
    messages: msgs.length,
    roles: msgs.map((m) => m.role[0]).join(""),
    thinkingBlocks,
    latestAssistant:
      latest < 0
        ? null
        : { at: `messages.${latest}`, content: Array.isArray(msgs[latest].content) ? msgs[latest].content.map(brief) : short(msgs[latest].content) },
    lastUser: short(JSON.stringify(msgs.at(-1)?.content)),
  };
}

// What recover's `--dry-run --json` plan says: how many changes, by rule, how many thinking blocks it drops as bound
// to what it changes (`droppedThinking`), and its notices (the --error explanation).

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.list) {
    for (const [name, s] of Object.entries(scenarios)) console.log(`${name.padEnd(30)} ${s.about}`);
    return;
  }
  if (!args.client || !args.scenario || !args.out) {
    console.error(
      "usage: node scripts/capture-claude-request.mjs --client <claude binary> --scenario <name> --out <dir> [--fixtures <dir>] [--enforce] [--recover <bin/recover>] [--skip-recover] [--recover-wait <s>]",
    );
    process.exit(2);
  }
  const scenario = scenarios[args.scenario];
  if (!scenario) throw new Error(`unknown scenario ${args.scenario}; --list shows them`);
  const loop = scenario.steps.some((s) => s.recover);
  args.model ??= scenario.model ?? "claude-sonnet-4-5";
  const recoverBin = path.resolve(args.recover ?? fileURLToPath(new URL("../bin/recover", import.meta.url)));
  if (loop && !args.skipRecover) {
    const bundle = path.join(path.dirname(recoverBin), "..", "dist", "main.cjs");
    if (!fs.existsSync(recoverBin)) throw new Error(`--recover: no ${recoverBin}`);
    if (!fs.existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` in ${path.resolve(path.dirname(recoverBin), "..")} first`);
  }

  const work = path.resolve(args.work);
  fs.rmSync(work, { recursive: true, force: true });
  const home = path.join(work, "home");
  const configDir = path.join(home, ".claude");
  const project = path.join(work, "project");
  fs.mkdirSync(configDir, { recursive: true });
  fs.mkdirSync(project, { recursive: true });
  for (const [name, content] of Object.entries(scenario.project ?? {})) fs.writeFileSync(path.join(project, name), content);
  const out = path.resolve(args.out);
  fs.mkdirSync(out, { recursive: true });
  const log = path.join(out, "requests.jsonl");
  fs.rmSync(log, { force: true });

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
    mismatchHeader: Boolean(args.mismatchHeader),
    contextLimit: args.contextLimit ?? scenario.contextLimit ?? 0,
    errors: [],
    answers: [],
  };
  const server = await startMock(state);
  const port = server.address().port;
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    TERM: "dumb",
    LANG: "C.UTF-8",
    TZ: "UTC",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: "sk-ant-test",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    ...scenario.clientEnv,
  };
  // recover sees what a user's shell would: the same HOME and CLAUDE_CONFIG_DIR; its backups stay under --work.
  const recoverEnv = {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: configDir,
    XDG_STATE_HOME: path.join(work, "state"),
    LANG: "C.UTF-8",
    TZ: "UTC",
    TERM: "dumb",
  };

  let sessionId = null;
  const notes = [];
  const stepLog = [];
  let before = null;
  const snapshot = (name) => {
    const t = sessionId ? findTranscript(configDir, sessionId) : null;
    if (enforce && t) fs.writeFileSync(path.join(out, name), fs.readFileSync(t, "utf8"));
  };
  try {
    for (const [i, step] of scenario.steps.entries()) {
      const n = i + 1;
      state.step = n;
      if (step.recover) {
        if (step.before) {
          const t = findTranscript(configDir, sessionId);
          notes.push(`before step ${n} (recover): ${step.before(t, { sessionId })}`);
        }
        snapshot(`transcript-step-${n}.before.jsonl`);
        // `withError: false`: a plain repair (no --error), e.g. before the client ever sent the damaged history.
        // A trim answers the size error (the client may have had other 400s since, e.g. while compacting).
        const err =
          step.withError === false
            ? undefined
            : step.command === "trim"
              ? state.errors.filter((e) => e.rule === "prompt_too_long").at(-1)
              : state.errors.at(-1);
        if (!err && step.withError !== false) throw new Error(`step ${n}: recover step, but the mock has answered no 400 so far`);
        // `command: "trim"`: `context trim` (the size error's own command) instead of `session repair`.
        const verb = step.command === "trim" ? ["context", "trim"] : ["session", "repair"];
        const cmd = [recoverBin, ...verb, sessionId, ...(err ? ["--error", err.message] : []), ...(step.args ?? []), "--yes", "--store", configDir];
        const shown = ["node", ...cmd].map(shellQuote).join(" ");
        fs.writeFileSync(path.join(out, `step-${n}.command`), shown + "\n");
        if (args.skipRecover) {
          notes.push(`step ${n}: recover NOT run (--skip-recover, control run); it would have been: ${shown}`);
          stepLog.push({ step: n, kind: "recover", skipped: true, command: shown });
          console.error(`step ${n}: recover skipped (--skip-recover)`);
          continue;
        }
        if (args.recoverWait) await new Promise((r) => setTimeout(r, args.recoverWait * 1000));
        const { plan, r } = await runRecoverStep(cmd, { n, out, cwd: project, env: recoverEnv, timeoutSeconds: args.timeout });
        snapshot(`transcript-step-${n}.after.jsonl`);
        stepLog.push({
          step: n,
          kind: "recover",
          command: shown,
          argv: cmd.slice(1),
          error: err?.message,
          expectExit: step.expectExit ?? 0,
          exit: r.code,
          signal: r.signal,
          plan,
          stdout: r.stdout,
          stderr: r.stderr,
        });
        console.error(
          `step ${n}: recover exit ${r.code}${r.signal ? " " + r.signal : ""}; plan: ${plan ? `${plan.changes} change(s), droppedThinking ${plan.droppedThinking}, rules ${JSON.stringify(plan.rules)}` : "(no JSON plan)"}`,
        );
        continue;
      }
      state.replies = [...step.replies];
      const transcript = sessionId ? findTranscript(configDir, sessionId) : null;
      if (step.edit) {
        if (!transcript) throw new Error("edit before any transcript exists");
        notes.push(`before step ${n}: ${step.edit(transcript, { sessionId })}`);
      }
      if (n === (scenario.captureStep ?? scenario.steps.length) && transcript) before = fs.readFileSync(transcript, "utf8");
      snapshot(`transcript-step-${n}.before.jsonl`);
      // --dangerously-skip-permissions is refused under root, so the tools the scenarios use are allowed by name.
      // The prompt goes first: --allowedTools is variadic and would swallow it.
      const cli = [step.prompt, "-p", "--output-format", "json", "--model", args.model, "--allowedTools", "Bash,Read"];
      if (step.resume) cli.push("--resume", sessionId);
      const r = await runToFiles(args.client, cli, {
        cwd: project,
        env,
        timeoutMs: args.timeout * 1000,
        stdoutFile: path.join(out, `step-${n}.stdout`),
        stderrFile: path.join(out, `step-${n}.stderr`),
      });
      snapshot(`transcript-step-${n}.after.jsonl`);
      let result = null;
      try {
        result = JSON.parse(r.stdout.trim().split("\n").at(-1));
      } catch {}
      const answers = state.answers.filter((a) => a.step === n && a.main);
      const statuses = answers.map((a) => a.status).join(",");
      console.error(
        `step ${n}: exit ${r.code}${r.signal ? " " + r.signal : ""}, session ${result?.session_id ?? "?"}${enforce ? `, mock answered ${statuses || "nothing"}` : ""}, result ${JSON.stringify(result?.result ?? r.stdout.slice(0, 200))}`,
      );
      // With the enforcing mock, a step that expects nothing (building a session) must be answered 200 throughout.
      const expect = step.expect ?? (enforce ? 200 : undefined);
      if (expect !== undefined) {
        const ok =
          expect === 400
            ? answers[0]?.status === 400 && (step.expectRule === undefined || answers[0].rule === step.expectRule)
            : answers.length > 0 && answers.every((a) => a.status === expect) && result?.is_error !== true && state.replies.length === 0;
        stepLog.push({
          step: n,
          kind: "client",
          prompt: step.prompt,
          expect,
          ok,
          exit: r.code,
          answers,
          result: result && {
            is_error: result.is_error,
            subtype: result.subtype,
            terminal_reason: result.terminal_reason,
            result: result.result,
            session_id: result.session_id,
          },
          stdout: result ? undefined : r.stdout,
          stderr: r.stderr || undefined,
        });
      }
      if (enforce) {
        const first = state.answers.find((a) => a.step === n && a.main);
        const q = first && readLines(log).find((e) => e.seq === first.seq);
        if (q) fs.writeFileSync(path.join(out, `step-${n}.request.trimmed.json`), JSON.stringify(trimRequest(q.body), null, 2) + "\n");
      }
      if (!result?.session_id && !(sessionId && step.expect === 400)) throw new Error(`step ${n} gave no session id (see ${out}/step-${n}.stdout/.stderr)`);
      if (sessionId && result?.session_id && result.session_id !== sessionId)
        notes.push(`step ${n}: client reported session ${result.session_id} (resumed ${sessionId})`);
      sessionId ??= result.session_id;
      if (state.replies.length && step.expect !== 400) notes.push(`step ${n}: ${state.replies.length} scripted repl(ies) not consumed`);
    }
  } finally {
    server.close();
  }

  const transcript = findTranscript(configDir, sessionId);
  fs.writeFileSync(path.join(out, "transcript-after.jsonl"), fs.readFileSync(transcript, "utf8"));
  if (before !== null) fs.writeFileSync(path.join(out, "transcript-before-final.jsonl"), before);
  const requests = readLines(log);
  const finalStep = scenario.captureStep ?? scenario.steps.length;
  const cont = requests.find((q) => q.step === finalStep && q.main);
  if (!cont) throw new Error("no main-loop request in the final step");
  fs.writeFileSync(path.join(out, "request.json"), JSON.stringify(cont.body, null, 2) + "\n");
  fs.writeFileSync(path.join(out, "request.trimmed.json"), JSON.stringify(trimRequest(cont.body), null, 2) + "\n");
  fs.writeFileSync(
    path.join(out, "meta.json"),
    JSON.stringify({ scenario: args.scenario, about: scenario.about, sessionId, transcript, project, notes, requests: requests.length, enforce }, null, 2) +
      "\n",
  );
  if (args.fixtures && !loop) {
    fs.mkdirSync(args.fixtures, { recursive: true });
    fs.writeFileSync(path.join(args.fixtures, `${args.scenario}.jsonl`), trimTranscript(before ?? fs.readFileSync(transcript, "utf8")));
    fs.writeFileSync(path.join(args.fixtures, `${args.scenario}.request.json`), JSON.stringify(trimRequest(cont.body), null, 2) + "\n");
  }
  for (const n of notes) console.error("note: " + n);
  console.error(`session ${sessionId}; ${requests.length} requests logged; continuing request: seq ${cont.seq}, ${cont.body.messages.length} messages`);

  if (loop) {
    const reasons = [];
    for (const s of stepLog) {
      if (s.kind === "client" && !s.ok)
        reasons.push(
          `step ${s.step}: expected ${s.expect}, mock answered ${s.answers.map((a) => a.status + (a.rule ? " " + a.rule : "")).join(", ") || "nothing"}${s.result?.is_error ? " (client result is_error)" : ""}`,
        );
      if (s.kind === "recover" && !s.skipped && s.exit !== s.expectExit) reasons.push(`step ${s.step}: recover exited ${s.exit} (expected ${s.expectExit})`);
    }
    const requestOf = (step) => requests.find((q) => q.step === step && q.main);
    const rejected = stepLog.find((s) => s.kind === "client" && s.expect === 400);
    // Facts that do not fail the loop but change what it proves.
    const warnings = [];
    if (rejected?.answers.some((a) => a.status === 200))
      warnings.push(
        `step ${rejected.step}: after the 400 the client retried by itself and got 200 (answers ${rejected.answers.map((a) => a.status).join(",")}); the session was not dead before recover ran`,
      );
    const recs = stepLog.filter((s) => s.kind === "recover");
    const diffOf = (step) => chainDiff(path.join(out, `transcript-step-${step}.before.jsonl`), path.join(out, `transcript-step-${step}.after.jsonl`));
    for (const rec of recs) {
      if (rec.skipped) continue;
      rec.transcriptChanges = diffOf(rec.step);
      const lost = (rec.transcriptChanges?.removed ?? []).filter((d) => / assistant (?!<synthetic>)/.test(d) && !/thinking:/.test(d));
      if (lost.length) warnings.push(`step ${rec.step}: recover removed assistant line(s) the model wrote: ${lost.join("; ")}`);
    }
    if (rejected) rejected.transcriptChanges = diffOf(rejected.step);
    const verdict = {
      scenario: args.scenario,
      pass: reasons.length === 0,
      reasons,
      warnings,
      sessionId,
      skipRecover: Boolean(args.skipRecover),
      steps: stepLog,
      rejectedRequest: rejected && requestSummary(requestOf(rejected.step)?.body),
      finalRequest: requestSummary(cont.body),
      finalAnswers: state.answers.filter((a) => a.step === finalStep && a.main),
    };
    fs.writeFileSync(path.join(out, "verdict.json"), JSON.stringify(verdict, null, 2) + "\n");
    if (args.fixtures && !args.skipRecover && recs.length) writeLoopFixture(args, scenario, out, recs, verdict, cont.body);
    for (const w of warnings) console.error("warning: " + w);
    // A control run (--skip-recover) has the same steps without the repair: "pass" there means the session came back
    // without recover.
    if (args.skipRecover)
      console.error(`CONTROL ${args.scenario} (recover not run): ${verdict.pass ? "every step as expected WITHOUT recover" : reasons.join("; ")}`);
    else console.error(`${verdict.pass ? "PASS" : "FAIL"} ${args.scenario}${reasons.length ? ": " + reasons.join("; ") : ""}`);
    if (!verdict.pass && !args.skipRecover) process.exitCode = 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(e.stack || String(e));
    process.exit(1);
  });
}
