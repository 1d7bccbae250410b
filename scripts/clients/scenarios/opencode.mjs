// The opencode scenarios (driver: ../opencode.mjs). Each builds a session with the real client, damages it (edits of
// stored messages and parts, the same in opencode.db and the JSON tree: editSession), or kills the client mid-tool,
// and continues it. fixtures/opencode-1.18 holds what the capture scenarios record (the store and the continuing
// request) and what the prefix-* repair loops record (the store before recover and expected.json);
// fixtures/opencode-1.1.65 the JSON tree `three-sessions` writes. `loop` marks a repair loop of the client suite;
// `versions` the client versions a scenario runs on (edits work on both stores; the prefix loops need 1.18's model
// table and its drop_block, the SQLite fixtures its store).
//
// Steps: see lib/engine.mjs (prompt, resume, replies, edit, kill, expect, contextLimit, side, check, version; recover
// steps) and the driver's header (args, argv, title). `project` files are in the project before step 1.
import fs from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { httpError, plainReply, reply, text, thinking, toolUse } from "../api/messages.mjs";
import { requestTokens } from "../api/messages-rules.mjs";
import { RECOVER_BIN } from "../lib/engine.mjs";
import { listFiles } from "../lib/files.mjs";
import { pdfFile } from "../lib/pdf.mjs";
import { runProcess } from "../lib/proc.mjs";
import { editSession, tableRows, treeSessions, withDb } from "../opencode.mjs";

const SIG = (n) => `EsMock${n}SignatureAAAABBBBCCCCDDDDeeeeffff0000111122223333==`;
const bash = (id, command, description = `Run ${command}`) => toolUse(id, "bash", { command, description });
const echoHi = (id = "toolu_mock_bash_01") => bash(id, "echo hi", "Print hi");
/** A read of `file` in the project (the work dir differs by version), as a reply made when the request comes. */
const read = (id, file) => (_body, _entry, ctx) => toolUse(id, "read", { filePath: path.join(ctx.sandbox.cwd, file) });
/** A reply whose blocks may be made when the request comes (the read paths above). */
const replyOf =
  (...blocks) =>
  (body, entry, ctx) =>
    reply(blocks.map((b) => (typeof b === "function" ? b(body, entry, ctx) : b)));
const partsOf = (msgs, role, type) => msgs.filter((m) => m.role === role).flatMap((m) => m.parts.filter((p) => p.type === type));
const assistants = (s) => s.messages().filter((m) => m.role === "assistant");
/** An edit of the stored session: `fn(store, ctx)` (the driver's editSession) returns its note. */
const inStore = (fn) => (ctx) => editSession(ctx, (s) => fn(s, ctx));

// A compaction killed mid-summary, as opencode leaves it (docs/research/opencode-compaction.md): the request (a user
// message holding a `compaction` part) and a summary reply saved before streaming, cut off: no finish, no completed.
const stuckCompaction = inStore((s) => {
  const msgs = s.messages();
  const last = msgs.at(-1);
  const lastUser = msgs.filter((m) => m.role === "user").at(-1);
  const assistant = msgs.filter((m) => m.role === "assistant").at(-1);
  const t = last.time_created + 1000;
  const request = `${last.id}1`;
  const summary = `${last.id}2`;
  s.insertMessage(request, t, { role: "user", time: { created: t }, agent: lastUser.agent, model: lastUser.model });
  s.insertPart(`prt_${request.slice(4)}`, request, t, { type: "compaction", auto: true, overflow: true });
  s.insertMessage(summary, t + 500, {
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
  s.insertPart(`prt_${summary.slice(4)}`, summary, t + 600, { type: "text", text: "## Goal\nSay hel", time: { start: t + 600 } });
  return `compaction request ${request} and its summary ${summary}, cut off (no finish, no time.completed)`;
});

/**
 * A compaction whose own request was over the model's window, as opencode 1.18.33 leaves it (its compaction.ts, in
 * the 1.18.33 binary: `processor.message.error = new ContextOverflowError({ message: replay ? "Conversation history too
 * large to compact - exceeds model context limit" : "Session too large to compact - …" })`, `finish = "error"`): the
 * request, and a summary with that error, finish "error", completed. Built by an edit: offline, 1.18.33's compaction
 * request is a condensed transcript (long texts and tool outputs cut) that fits wherever the turn overflowed
 * (docs/research/opencode-compaction.md, "Failed compactions").
 */
const failedCompaction = inStore((s) => {
  const msgs = s.messages();
  const last = msgs.at(-1);
  const lastUser = msgs.filter((m) => m.role === "user").at(-1);
  const assistant = msgs.filter((m) => m.role === "assistant").at(-1);
  const t = last.time_created + 1000;
  const request = `${last.id}1`;
  const summary = `${last.id}2`;
  s.insertMessage(request, t, { role: "user", time: { created: t }, agent: lastUser.agent, model: lastUser.model });
  s.insertPart(`prt_${request.slice(4)}`, request, t, { type: "compaction", auto: true, overflow: true });
  s.insertMessage(summary, t + 500, {
    role: "assistant",
    time: { created: t + 500, completed: t + 900 },
    parentID: request,
    modelID: assistant.modelID,
    providerID: assistant.providerID,
    mode: "compaction",
    agent: "compaction",
    summary: true,
    path: assistant.path,
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    error: { name: "ContextOverflowError", data: { message: "Conversation history too large to compact - exceeds model context limit" } },
    finish: "error",
  });
  return `compaction request ${request} and its summary ${summary}: ContextOverflowError "Conversation history too large to compact", finish error`;
});

/**
 * A hard kill while the bash call `callID` ran, as opencode leaves it (the `interrupted-tool` scenario): the tool part
 * `running`, the step's step-finish gone, its message without time.completed and finish, and the replies after it in
 * the same turn (the follow-up step) never written.
 */
const interruptTool = (callID) =>
  inStore((s) => {
    const msgs = s.messages();
    const at = msgs.find((m) => m.role === "assistant" && m.parts.some((p) => p.type === "tool" && p.callID === callID));
    if (!at) throw new Error(`no tool call ${callID}`);
    const later = msgs.filter(
      (m) => m.role === "assistant" && m.parentID === at.parentID && (m.time_created > at.time_created || (m.time_created === at.time_created && m.id > at.id)),
    );
    for (const m of later) s.deleteMessage(m.id);
    for (const p of at.parts) {
      if (p.type === "step-finish") s.deletePart(p.id);
      if (p.type === "tool" && p.callID === callID)
        s.updatePart(p.id, (d) => {
          d.state = { status: "running", input: d.state.input, title: d.state.title ?? "", metadata: {}, time: { start: d.state.time.start } };
        });
    }
    s.updateMessage(at.id, (m) => {
      delete m.time.completed;
      delete m.finish;
    });
    return `hard kill while ${callID} ran: in ${at.id} the bash part -> running, step-finish deleted, time.completed and finish removed; the follow-up message(s) ${later.map((m) => m.id).join(", ") || "(none)"} deleted`;
  });

const textTurn = (prompt, said, resume = true) => ({ prompt, ...(resume ? { resume } : {}), replies: [reply([text(said)])] });
const toolTurn = (prompt = "Run `echo hi` with bash and tell me the output.") => ({
  prompt,
  replies: [reply([text("I'll run it."), echoHi()]), reply([text("The output is hi.")])],
});
const parallelTurn = {
  prompt: "Read notes.txt and run `echo hi`, both at once.",
  replies: [
    replyOf(text("Doing both."), read("toolu_mock_read_01", "notes.txt"), echoHi("toolu_mock_bash_02")),
    reply([text("notes.txt has alpha and beta; echo printed hi.")]),
  ],
};
/** "Think, then say <word>." answered with a signed "Thought <word>." and the word. */
const thought = (word, n, resume = true) => ({
  prompt: `Think, then say ${word}.`,
  ...(resume ? { resume } : {}),
  replies: [reply([thinking(`Thought ${word}.`, SIG(n)), text(word)])],
});
const thinkingTurns = [
  { prompt: "Think, then say one.", replies: [reply([thinking("First I think about one.", SIG(1)), text("one")])] },
  { prompt: "Think, then say two.", resume: true, replies: [reply([thinking("Now I think about two.", SIG(2)), text("two")])] },
  textTurn("Say three.", "three"),
];

// The capture scenarios record what the client sends for a damaged store, whatever the API would say; as repair loops
// the mock applies the API's rules, so a damage the API refuses is refused, repaired with its error, and accepted.
const ENFORCED = { enforce: true };

const capture = {
  "failed-compaction": {
    loop: { ...ENFORCED, withError: false, edit: failedCompaction },
    versions: ["1.18.33"],
    fixture: "repair",
    about:
      "a text turn; then a compaction whose own request was over the window is added, as opencode 1.18.33 stores it (summary: ContextOverflowError `Conversation history too large to compact - exceeds model context limit`, finish error); plain repair; continue → 200 without the stray compaction",
    steps: [textTurn("Say hello.", "Hello! How can I help?", false), textTurn("Say two.", "two")],
  },
  "stuck-compaction": {
    loop: ENFORCED,
    about: "a text turn; then a compaction request with a summary cut off mid-stream is added (as a kill leaves it); then continue",
    steps: [
      textTurn("Say hello.", "Hello! How can I help?", false),
      {
        prompt: "What next?",
        resume: true,
        edit: stuckCompaction,
        replies: [reply([text("Summary: the user said hello.")]), reply([text("Nothing else to do.")]), reply([text("ok")])],
      },
    ],
  },
  "stuck-compaction-repaired": {
    about: "as stuck-compaction, then `recover session repair --include-live` before continuing (the compaction is seconds old)",
    steps: [
      textTurn("Say hello.", "Hello! How can I help?", false),
      { recover: "repair", withError: false, args: ["--include-live"], edit: stuckCompaction },
      { prompt: "What next?", resume: true, replies: [reply([text("Nothing else to do.")]), reply([text("ok")]), reply([text("ok")])] },
    ],
  },
  text: {
    about: "plain text turn, then continue",
    steps: [textTurn("Say hello.", "Hello! How can I help?", false), textTurn("Say it again.", "Hello again.")],
  },
  thinking: {
    about: "two turns answered with signed thinking + text, a third plain; then continue (are earlier thinking blocks sent?)",
    steps: thinkingTurns,
  },
  "thinking-variant": {
    about: "as thinking, but every run with --variant high (extended thinking requested)",
    variant: "high",
    steps: thinkingTurns,
  },
  "tool-bash": {
    about: "text + tool_use (bash echo hi) in one response, the result, a final text; then continue",
    steps: [toolTurn(), textTurn("Thanks.", "You're welcome.")],
  },
  "thinking-tool": {
    about: "signed thinking + text + tool_use (bash), result, then thinking + tool_use (read), result, thinking + text; then continue",
    project: { "notes.txt": "alpha\nbeta\n" },
    variant: "high",
    steps: [
      {
        prompt: "Think, run `echo hi` with bash, read notes.txt, then tell me.",
        replies: [
          reply([thinking("I should run echo.", SIG(1)), text("Running it."), echoHi()]),
          replyOf(thinking("Now read the file.", SIG(2)), read("toolu_mock_read_02", "notes.txt")),
          reply([thinking("The output was hi and the file has alpha, beta.", SIG(3)), text("It printed hi; notes.txt has alpha and beta.")]),
        ],
      },
      textTurn("Thanks.", "You're welcome."),
    ],
  },
  "tool-parallel": {
    about: "two tool_use blocks in one response (read + bash), both results, final text; then continue",
    project: { "notes.txt": "alpha\nbeta\n" },
    steps: [parallelTurn, textTurn("Thanks.", "You're welcome.")],
  },
  "tool-error": {
    about: "tool_use of bash that fails (exit 3), of a tool that does not exist, and read of a missing file (tool error); results; final text; then continue",
    steps: [
      {
        prompt: "Run `exit 3` with bash.",
        replies: [
          replyOf(
            bash("toolu_mock_bash_01", "echo oops; exit 3", "Fail"),
            toolUse("toolu_mock_nope_02", "nosuchtool", { x: 1 }),
            read("toolu_mock_read_03", "missing.txt"),
          ),
          reply([text("It failed.")]),
        ],
      },
      textTurn("Thanks.", "You're welcome."),
    ],
  },
  "merged-steps": {
    loop: ENFORCED,
    about:
      "tool turn (text + tool_use, then text) whose two assistant messages are merged into one in the store (parts moved, second message deleted); then continue",
    steps: [
      toolTurn(),
      {
        ...textTurn("Thanks.", "You're welcome."),
        edit: inStore((s) => {
          const [first, second] = assistants(s);
          s.moveParts(second.id, first.id);
          s.deleteMessage(second.id);
          return `parts of assistant ${second.id} moved into ${first.id} (now step-start, text, tool, step-finish, step-start, text, step-finish); ${second.id} deleted`;
        }),
      },
    ],
  },
  "interrupted-tool": {
    loop: ENFORCED,
    about:
      "two parallel tool calls; store edited to look hard-killed mid-tool: one tool running, one pending, no step-finish, no time.completed, final message deleted; then continue",
    project: { "notes.txt": "alpha\nbeta\n" },
    steps: [
      parallelTurn,
      {
        ...textTurn("Continue.", "Continuing."),
        edit: inStore((s) => {
          const [first, second] = assistants(s);
          s.deleteMessage(second.id);
          for (const p of first.parts) {
            if (p.type === "step-finish") s.deletePart(p.id);
            if (p.type === "tool" && p.tool === "read")
              s.updatePart(p.id, (d) => {
                d.state = { status: "running", input: d.state.input, title: "notes.txt", metadata: {}, time: { start: d.state.time.start } };
              });
            if (p.type === "tool" && p.tool === "bash")
              s.updatePart(p.id, (d) => {
                d.state = { status: "pending", input: {}, raw: "" };
              });
          }
          s.updateMessage(first.id, (m) => {
            delete m.time.completed;
            delete m.finish;
          });
          return `final assistant ${second.id} deleted; in ${first.id}: step-finish deleted, read tool -> running, bash tool -> pending (input {}), time.completed and finish removed`;
        }),
      },
    ],
  },
  "api-error": {
    about: "turn 1 ok; turn 2 the mock answers 400 (invalid_request_error); turn 3 continues (is the errored turn sent?)",
    steps: [
      textTurn("Say one.", "one", false),
      { prompt: "Say two.", resume: true, replies: [httpError(400, "invalid_request_error", "mock: messages.1: something is wrong")] },
      textTurn("Say three.", "three"),
    ],
  },
  "api-error-tool": {
    about: "turn 1: tool_use (bash), then the follow-up request answered 400; turn 2 continues",
    steps: [
      {
        prompt: "Run `echo hi` with bash.",
        replies: [reply([text("Running."), echoHi()]), httpError(400, "invalid_request_error", "mock: rejected the follow-up")],
      },
      textTurn("Try again.", "hi"),
    ],
  },
  "edited-text-thinking": {
    loop: ENFORCED,
    about:
      'signed thinking + text turn and a plain text turn; both stored texts set to "" (opencode turns "" into " " when the message has signed reasoning); then continue',
    variant: "high",
    steps: [
      thought("one", 1, false),
      textTurn("Say two.", "two"),
      {
        ...textTurn("Say three.", "three"),
        edit: inStore((s) => {
          const at = partsOf(s.messages(), "assistant", "text");
          for (const t of ["one", "two"])
            s.updatePart(at.find((p) => p.text === t).id, (d) => {
              d.text = "";
            });
          return 'assistant texts "one" (next to signed reasoning) and "two" (no reasoning) set to ""';
        }),
      },
    ],
  },
  "edited-misc": {
    loop: ENFORCED,
    about:
      "thinking turns and a tool turn; edits: reasoning signature moved to metadata.anthropic.redactedData, one assistant message's modelID changed, one completed tool compacted, one tool made error+interrupted with metadata.output; then continue",
    variant: "high",
    steps: [
      thought("one", 1, false),
      thought("two", 2),
      {
        prompt: "Run `echo hi` and `echo ho` with bash.",
        resume: true,
        replies: [reply([echoHi(), bash("toolu_mock_bash_02", "echo ho", "Print ho")]), reply([text("hi and ho.")])],
      },
      {
        ...textTurn("Say four.", "four"),
        edit: inStore((s) => {
          const msgs = s.messages();
          const done = [];
          const one = partsOf(msgs, "assistant", "reasoning").find((p) => p.text === "Thought one.");
          s.updatePart(one.id, (d) => {
            d.metadata = { anthropic: { redactedData: "RedactedMockData==" } };
          });
          done.push('"Thought one.": metadata {anthropic:{redactedData}} instead of a signature');
          const a2 = msgs.find((m) => m.role === "assistant" && m.parts.some((p) => p.text === "Thought two."));
          s.updateMessage(a2.id, (d) => {
            d.modelID = "claude-opus-4-1";
          });
          done.push('assistant with "Thought two.": modelID claude-sonnet-4-5 -> claude-opus-4-1');
          const tools = partsOf(msgs, "assistant", "tool");
          s.updatePart(tools[0].id, (t) => {
            t.state.time.compacted = t.state.time.end;
          });
          done.push("first bash tool: state.time.compacted set");
          s.updatePart(tools[1].id, (t) => {
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
        }),
      },
    ],
  },
  "agents-md": {
    about: "AGENTS.md in the project; one turn, then continue (where do instructions go?)",
    project: { "AGENTS.md": "# Project rules\n\nAlways answer in one short sentence.\n" },
    steps: [textTurn("What are the project rules?", "Answer in one short sentence.", false), textTurn("Thanks.", "Welcome.")],
  },
  "edited-error": {
    loop: ENFORCED,
    about:
      "four text turns; stored assistant messages edited: turn 2 gets an APIError, turn 3 a MessageAbortedError (parts kept), turn 4 a MessageAbortedError with only step-start + reasoning; then continue",
    steps: [
      textTurn("Say one.", "one", false),
      textTurn("Say two.", "two"),
      textTurn("Say three.", "three"),
      { prompt: "Think about four.", resume: true, replies: [reply([thinking("Thought four.", SIG(4)), text("four")])] },
      {
        ...textTurn("Say five.", "five"),
        edit: inStore((s) => {
          const a = assistants(s);
          const setError = (m, error) =>
            s.updateMessage(m.id, (d) => {
              d.error = error;
            });
          setError(a[1], { name: "APIError", data: { message: "mock: overloaded", statusCode: 529, isRetryable: true } });
          setError(a[2], { name: "MessageAbortedError", data: { message: "The operation was aborted." } });
          setError(a[3], { name: "MessageAbortedError", data: { message: "The operation was aborted." } });
          for (const p of a[3].parts) if (p.type === "text" || p.type === "step-finish") s.deletePart(p.id);
          return 'assistant "two": error APIError (parts kept); "three": error MessageAbortedError (parts kept); "four": MessageAbortedError, text and step-finish parts deleted (step-start + reasoning left)';
        }),
      },
    ],
  },
  "request-too-large": {
    loop: ENFORCED,
    versions: ["1.18.33"],
    fixture: "repair",
    about:
      "a text turn; then a prompt with -f big.pdf (3 pages, 25 MB: 33 MB as base64, the request over the API's 32 MB) → 413 request_too_large (automatic compaction off); recover --error; continue → 200",
    // opencode takes a 413 for an overflow and compacts by itself, media stripped (request-too-large-autocompact);
    // with that off the session stops at the 413, as a user who keeps the history whole has it.
    config: { compaction: { auto: false } },
    project: {
      get "big.pdf"() {
        return pdfFile(3, 25 * 1024 * 1024);
      },
    },
    steps: [
      textTurn("Say hello.", "Hello! How can I help?", false),
      {
        prompt: "Summarise the attached PDF.",
        resume: true,
        args: ["-f", "big.pdf"],
        expect: 413,
        expectRule: "request_too_large",
        replies: [reply([text("(unused)")])],
      },
    ],
  },
  "huge-attachment": {
    loop: { enforce: true, withError: false },
    versions: ["1.18.33"],
    about:
      "as request-too-large with opencode's default automatic compaction: the client compacts on the 413 (media stripped from the request) and goes on, the 33 MB PDF still in the store (read on every open); plain repair; continue → 200",
    project: {
      get "big.pdf"() {
        return pdfFile(3, 25 * 1024 * 1024);
      },
    },
    steps: [
      textTurn("Say hello.", "Hello! How can I help?", false),
      {
        prompt: "Summarise the attached PDF.",
        resume: true,
        args: ["-f", "big.pdf"],
        expect: 413,
        replies: [reply([text("Summary: the user said hello and attached a PDF.")]), reply([text("The PDF was too large to read.")])],
      },
      { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] },
    ],
  },
  "file-part": {
    about: "first prompt with -f notes.txt (text file) and -f dot.png (image); then continue",
    project: {
      "notes.txt": "alpha\nbeta\ngamma\n",
      "dot.png": Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64"),
    },
    steps: [
      { ...textTurn("Summarise the attached files.", "Three Greek letters and a dot.", false), args: ["-f", "notes.txt", "-f", "dot.png"] },
      textTurn("And the first letter?", "alpha"),
    ],
  },
  "edited-text": {
    loop: ENFORCED,
    about: "tool turn + text turn; stored text parts edited: empty, whitespace, synthetic, ignored (user and assistant); then continue",
    steps: [
      { prompt: "Run `echo hi` with bash.", replies: [reply([text("Running."), echoHi()]), reply([text("Done: hi.")])] },
      textTurn("Say two.", "two"),
      {
        ...textTurn("Say three.", "three"),
        edit: inStore((s) => {
          const msgs = s.messages();
          const done = [];
          const at = partsOf(msgs, "assistant", "text");
          const ut = partsOf(msgs, "user", "text");
          const setText = (p, to, what) => {
            s.updatePart(p.id, (d) => {
              d.text = to;
            });
            done.push(what);
          };
          setText(
            at.find((p) => p.text === "Running."),
            "",
            'assistant "Running." -> ""',
          );
          setText(
            at.find((p) => p.text === "Done: hi."),
            " \n\t ",
            'assistant "Done: hi." -> " \\n\\t "',
          );
          const two = at.find((p) => p.text === "two");
          s.updatePart(two.id, (d) => {
            d.synthetic = true;
          });
          done.push('assistant "two" -> synthetic:true');
          s.insertPartAfter(two.id, { type: "text", text: "IGNORED assistant text", ignored: true });
          done.push('inserted assistant text "IGNORED assistant text" ignored:true after "two"');
          let after = ut.find((p) => p.text.startsWith("Run `echo hi`")).id;
          for (const part of [
            { type: "text", text: "SYNTHETIC user text", synthetic: true },
            { type: "text", text: "IGNORED user text", ignored: true },
            { type: "text", text: "" },
            { type: "text", text: "  \n " },
          ])
            after = s.insertPartAfter(after, part);
          done.push('inserted after the first user text: "SYNTHETIC user text" synthetic, "IGNORED user text" ignored, "" and "  \\n " plain');
          // 1.1.x stores a prompt with "\n" after it (stdin is not a TTY): prompts are compared trimmed.
          setText(
            ut.find((p) => p.text.trim() === "Say two."),
            "",
            'user "Say two." -> "" (its only text part)',
          );
          return done.join("; ");
        }),
      },
    ],
  },
  "edited-reasoning": {
    loop: ENFORCED,
    about:
      "three thinking turns (one with a tool); stored reasoning edited: signature metadata removed, text emptied (signature kept), text whitespace; then continue",
    variant: "high",
    steps: [
      thought("one", 1, false),
      thought("two", 2),
      {
        prompt: "Think, run `echo hi`, then say three.",
        resume: true,
        replies: [reply([thinking("Thought three.", SIG(3)), echoHi()]), reply([thinking("Thought four.", SIG(4)), text("three")])],
      },
      {
        ...textTurn("Say five.", "five"),
        edit: inStore((s) => {
          const r = partsOf(s.messages(), "assistant", "reasoning");
          const by = (t) => r.find((p) => p.text === t).id;
          s.updatePart(by("Thought one."), (d) => {
            delete d.metadata;
          });
          s.updatePart(by("Thought two."), (d) => {
            d.text = "";
          });
          s.updatePart(by("Thought three."), (d) => {
            d.text = " \n ";
          });
          return '"Thought one.": metadata deleted (no signature); "Thought two.": text "" (signature kept); "Thought three." (before a tool_use): text " \\n " (signature kept)';
        }),
      },
    ],
  },
  "killed-mid-tool": {
    loop: true,
    smoke: true,
    enforce: true,
    about: "bash `sleep 60`; the client (and its children) SIGKILLed 3 s after the mock answered the tool_use reply; then continue",
    steps: [
      {
        prompt: "Run `sleep 60` with bash.",
        replies: [reply([text("Running it."), bash("toolu_mock_sleep_01", "sleep 60", "Sleep a minute")]), reply([text("Slept.")])],
        kill: { afterRequest: 1, afterMs: 3000 },
      },
      textTurn("What happened?", "The command was interrupted."),
    ],
  },
  // The JSON tree of fixtures/opencode-1.1.65: three runs in one project, each a new session, titles asked of the mock.
  "three-sessions": {
    versions: ["1.1.65"],
    fixture: "tree",
    about:
      "three new sessions in one project: a text answer, a bash `ls` tool turn, a text answer; the client titles each (the store of fixtures/opencode-1.1.65)",
    project: { "notes.txt": "alpha\nbeta\n" },
    steps: [
      { ...textTurn("What is the capital of France?", "The capital of France is Paris.", false), side: plainReply("Capital of France"), expect: 200 },
      {
        prompt: "List the files here with bash.",
        side: plainReply("List project files"),
        replies: [
          reply([text("I'll list them."), bash("toolu_mock_bash_01", "ls", "List files in the project")]),
          reply([text("The project holds one file: notes.txt.")]),
        ],
        expect: 200,
      },
      { ...textTurn("Say goodbye.", "Goodbye!", false), side: plainReply("Saying goodbye"), expect: 200 },
    ],
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Prefix-bound thinking (issue 36; docs/research/opencode-prefix-thinking.md): sessions on a model of recover's table
// (claude-opus-5-5) whose replies carry two thinking blocks each, over 3-4 turns (`--variant high`); the enforcing mock
// binds each block to its prefix. One history, damaged in different places; the continue is refused (or, `-plain`, the
// repair runs before the client sends the damaged history); the loop's repair must then give a request the mock
// accepts with nothing for `drop_block` to drop. The usage the mock reports is the size of the request it counts
// (requestTokens), so context trim calibrates against what the client stored (`--set usage=null`: the fixed 100).
function prefixScenarios() {
  const filler = reply([text("(mock: scripted reply; sent only to a request of this step that passes the rules)")]);
  const twoThoughts = (word, n) => reply([thinking(`First thought about ${word}.`, SIG(n)), thinking(`Second thought about ${word}.`, SIG(n + 1)), text(word)]);
  const turn1 = { prompt: "Think twice, then say one.", replies: [twoThoughts("one", 11)] };
  const turn2 = (command = "echo hi", said = "It printed hi.") => ({
    prompt: `Think, run \`${command}\` with bash, then tell me the output.`,
    resume: true,
    replies: [
      reply([thinking("I should run it.", SIG(21)), text("Running it."), bash("toolu_mock_bash_01", command)]),
      reply([thinking("The output is in.", SIG(22)), thinking("That is all it printed.", SIG(23)), text(said)]),
    ],
  });
  const turn3 = { prompt: "Think twice, then say three.", resume: true, replies: [twoThoughts("three", 31)] };
  const build = [turn1, turn2(), turn3];
  const blankReply = (said) =>
    inStore((s) => {
      const p = partsOf(s.messages(), "assistant", "text").find((x) => x.text === said);
      s.updatePart(p.id, (d) => {
        d.text = " \n ";
      });
      return `assistant text "${said}" (part ${p.id}) set to " \\n " (the reasoning parts before it kept)`;
    });
  const blankOne = blankReply("one");
  const blankPrompt = inStore((s) => {
    const p = partsOf(s.messages(), "user", "text").find((x) => x.text.startsWith("Think, run"));
    s.updatePart(p.id, (d) => {
      d.text = "  ";
    });
    return `turn two's user prompt (part ${p.id}, "Think, run …") set to "  "`;
  });
  const five = { prompt: "Say five.", reply: reply([text("five")]) };
  const base = { enforce: true, model: "anthropic/claude-opus-5-5", variant: "high", usage: requestTokens, versions: ["1.18.33"], fixture: "repair" };
  const rejected = (rule, edit) => ({ prompt: "Say four.", resume: true, expect: 400, expectRule: rule, replies: [filler], ...(edit ? { edit } : {}) });
  // The client refused for the damage; the loop repairs with the refusal's text.
  const refused = (about, edit, { model = base.model, steps = build } = {}) => ({
    ...base,
    about,
    model,
    steps: [...steps, rejected("text_blank", edit)],
    loop: five,
  });
  // The damage, then the loop's repair (no error text) before the client sends it.
  const plain = (about, edit, { steps = build, args } = {}) => ({ ...base, about, steps, loop: { ...five, edit, ...(args ? { recoverArgs: args } : {}) } });
  const big = { "big.txt": bigFile() };
  // Just above every request the mock has seen: each fitted, and the session's next turn does not (a fixed window the
  // session just outgrew, without tuning a number to this client's system prompt and tool list).
  const grow = (ctx) => {
    const sizes = fs
      .readFileSync(path.join(ctx.out, "requests.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((q) => q.method === "POST" && q.body?.messages)
      .map((q) => requestTokens(q.body));
    return Math.max(...sizes) + 20;
  };
  const overflowSteps = [turn1, turn2("cat big.txt", "It is a long numbered list."), turn3, { ...rejected("prompt_too_long"), contextLimit: grow }];
  return {
    "prefix-blank-text": refused(
      "opus-5-5, 7 thinking blocks over 3 turns; turn one's text made whitespace; continue → 400; recover --error; continue → 200",
      blankOne,
    ),
    "prefix-blank-text-plain": plain("as prefix-blank-text, but a plain repair before the client sends the damaged history", blankOne),
    "prefix-blank-prompt": refused("opus-5-5; turn two's user prompt made whitespace; continue → 400; recover --error; continue → 200", blankPrompt),
    "prefix-blank-prompt-plain": plain("as prefix-blank-prompt, but a plain repair before the client sends the damaged history", blankPrompt),
    "prefix-overflow": {
      ...base,
      about:
        "opus-5-5; turn two's bash prints a 24 KB file; the window is then set just above the largest request so far; continue → 400 prompt is too long; recover context trim --error; continue → 200",
      project: big,
      // opencode compacts by itself on `prompt is too long` (a summary request, then the turn again on the summary:
      // every earlier message and thinking block out of the request); with that off the session stops at the 400,
      // as a user who keeps the history whole has it. prefix-overflow-autocompact is the default.
      config: { compaction: { auto: false } },
      steps: overflowSteps,
      loop: { ...five, command: "trim" },
    },
    "prefix-overflow-autocompact": {
      ...base,
      fixture: undefined,
      about: "as prefix-overflow with opencode's default automatic compaction (control only: the client summarises the session itself on the 400)",
      project: big,
      steps: [...overflowSteps, { prompt: "Say five.", resume: true, expect: 200, replies: [reply([text("five")])] }],
    },
    "prefix-interrupted": {
      ...base,
      about:
        "opus-5-5; turn two's bash call interrupted as a hard kill leaves it (tool running, no step-finish, its follow-up reply gone); the client continues twice (turns three and four, 2 thinking blocks each); plain repair; continue → 200",
      steps: [
        turn1,
        turn2(),
        { ...turn3, expect: 200, edit: interruptTool("toolu_mock_bash_01") },
        { prompt: "Think twice, then say four.", resume: true, expect: 200, replies: [twoThoughts("four", 41)] },
      ],
      loop: five,
    },
    "prefix-tail-blank-text": refused(
      "opus-5-5; the last reply's text (turn three, after its 2 thinking blocks) made whitespace; continue → 400; recover --error; continue → 200 with all 7",
      blankReply("three"),
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
    "prefix-blank-text-sonnet45": refused("as prefix-blank-text on claude-sonnet-4-5 (no prefix binding): thinking kept", blankOne, {
      model: "anthropic/claude-sonnet-4-5",
    }),
    "prefix-blank-prompt-sonnet45": refused("as prefix-blank-prompt on claude-sonnet-4-5 (no prefix binding): thinking kept", blankPrompt, {
      model: "anthropic/claude-sonnet-4-5",
    }),
  };
}

/** 400 numbered lines, 24 KB: a file whose `cat` is the oversized tool output of prefix-overflow. */
function bigFile() {
  const lines = [];
  for (let i = 1; i <= 400; i++) lines.push(`${String(i).padStart(4, "0")} ${"lorem ipsum dolor sit amet ".repeat(2).trim()}`);
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// `recover session import` end to end (docs/opencode-stores.md): sessions opencode 1.1.65 left in its JSON tree are
// invisible to 1.18 (SQLite, no import of storage/ any more: anomalyco/opencode #13654); after the import 1.18 lists
// them, continues one and sends its whole history; restoring the import's backup gives back every row as it was (the
// recover step's restore check, on opencode.db's rows).

const LEGACY = "1.1.65";
const sessionList = (check) => ({
  argv: ["session", "list", "--format", "json"],
  check(ctx, r) {
    let list;
    try {
      list = JSON.parse(r.stdout.trim() || "[]");
    } catch {
      return [`\`opencode session list\` printed no JSON (exit ${r.code})`];
    }
    return check(ctx, new Map(list.map((s) => [s.id, s])));
  },
});
const legacyIds = (ctx) => treeSessions(ctx.sandbox.storage).map((s) => s.id);
const dbSessions = (ctx) => withDb(ctx.sandbox.db, (db) => db.prepare("SELECT id, title FROM session").all());
const count = (ctx, table, id) => withDb(ctx.sandbox.db, (db) => db.prepare(`SELECT count(*) n FROM ${table} WHERE session_id = ?`).get(id).n);

/** The imported rows: message / part `data` equal the JSON tree's files without the ids that became columns. */
function unfaithful(ctx) {
  const storage = ctx.sandbox.storage;
  const bad = [];
  withDb(ctx.sandbox.db, (db) => {
    for (const id of legacyIds(ctx)) {
      for (const m of db.prepare("SELECT * FROM message WHERE session_id = ?").all(id)) {
        const { id: mid, sessionID, ...rest } = JSON.parse(fs.readFileSync(path.join(storage, "message", id, `${m.id}.json`), "utf8"));
        if (mid !== m.id || sessionID !== m.session_id || !isDeepStrictEqual(rest, JSON.parse(m.data))) bad.push(m.id);
      }
      for (const p of db.prepare("SELECT * FROM part WHERE session_id = ?").all(id)) {
        const { id: pid, sessionID, messageID, ...rest } = JSON.parse(fs.readFileSync(path.join(storage, "part", p.message_id, `${p.id}.json`), "utf8"));
        if (pid !== p.id || sessionID !== p.session_id || messageID !== p.message_id || !isDeepStrictEqual(rest, JSON.parse(p.data))) bad.push(p.id);
      }
    }
  });
  return bad;
}

/** The tables of opencode.db whose rows other than those of `sessionIds` differ between `before` and `after`. */
function changedBesides(before, after, sessionIds) {
  const ours = (table, r) => (table === "session" ? sessionIds.includes(r.id) : sessionIds.includes(r.session_id));
  const changed = [];
  for (const t of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = (after[t] ?? []).filter((r) => !ours(t, r));
    const b = (before[t] ?? []).filter((r) => !ours(t, r));
    if (!isDeepStrictEqual(a, b)) changed.push(`${t} (${b.length} -> ${a.length} rows)`);
  }
  return changed;
}

/** A request's messages as flat blocks: { i, role, type, text, id, name, tool_use_id, content (as text) }. */
function flatBlocks(messages) {
  return (messages ?? []).flatMap((m, i) =>
    (typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? [])).map((b) => ({
      i,
      role: m.role,
      ...b,
      content: Array.isArray(b.content) ? b.content.map((c) => c.text ?? JSON.stringify(c)).join("\n") : b.content,
    })),
  );
}

const LS_PROMPT = "List the files here with bash.";
const CONTINUE_PROMPT = "What did ls print?";
/**
 * The continuing request of the imported `ls` session, judged: its whole history in order, then the new prompt, and
 * nothing of another session; the mock refuses it (400, naming what is missing) otherwise.
 */
function importedHistory(body) {
  const blocks = flatBlocks(body.messages);
  const expect = [
    ["the old prompt", (b) => b.role === "user" && b.type === "text" && b.text?.includes(LS_PROMPT)],
    ["the old answer before the tool", (b) => b.role === "assistant" && b.type === "text" && b.text === "I'll list them."],
    ["tool_use bash toolu_mock_bash_01", (b) => b.role === "assistant" && b.type === "tool_use" && b.id === "toolu_mock_bash_01" && b.name === "bash"],
    [
      "its tool_result holding the `ls` output",
      (b) => b.role === "user" && b.type === "tool_result" && b.tool_use_id === "toolu_mock_bash_01" && String(b.content).includes("notes.txt"),
    ],
    ["the old final answer", (b) => b.role === "assistant" && b.type === "text" && b.text === "The project holds one file: notes.txt."],
    ["the new prompt", (b) => b.role === "user" && b.type === "text" && b.text?.includes(CONTINUE_PROMPT)],
  ];
  let from = 0;
  const missing = [];
  for (const [label, pred] of expect) {
    const k = blocks.findIndex((b, j) => j >= from && pred(b));
    if (k < 0) missing.push(label);
    else from = k + 1;
  }
  const last = body.messages.at(-1);
  if (last?.role !== "user" || !flatBlocks([last]).some((b) => b.type === "text" && b.text?.includes(CONTINUE_PROMPT))) missing.push("the new prompt last");
  if (blocks.some((b) => (b.text ?? "").includes("What is the capital of France?") || (b.text ?? "").includes("Say hello.")))
    missing.push("no other session's history");
  return missing.length
    ? httpError(400, "invalid_request_error", `mock: the continuing request lacks, in order: ${missing.join("; ")}`)
    : reply([text("It printed notes.txt.")]);
}

const importScenarios = {
  "import-legacy": {
    // In the client suite too: the sessions a user cannot see are what recover repairs here (the loop then repairs the
    // continued session, which must need nothing, and continues it once more).
    loop: true,
    versions: ["1.18.33"],
    about:
      "1.1.65 writes two sessions to its JSON tree; 1.18.33 starts a session in the same data dir and does not list them; `recover session import --all`; 1.18.33 lists them and continues the bash one with its whole history; scan finds nothing",
    project: { "notes.txt": "alpha\nbeta\n" },
    // 1.1.65 has no --auto; 1.18 reads the same config.
    config: { permission: { bash: "allow", edit: "allow" } },
    steps: [
      {
        version: LEGACY,
        ...textTurn("What is the capital of France?", "The capital of France is Paris.", false),
        side: plainReply("Capital of France"),
        expect: 200,
      },
      {
        version: LEGACY,
        prompt: LS_PROMPT,
        side: plainReply("List project files"),
        replies: [
          reply([text("I'll list them."), bash("toolu_mock_bash_01", "ls", "List files in the project")]),
          reply([text("The project holds one file: notes.txt.")]),
        ],
        expect: 200,
        check: (ctx) => [
          ...(legacyIds(ctx).length === 2 ? [] : [`${legacyIds(ctx).length} sessions in storage/, not 2`]),
          ...(fs.existsSync(ctx.sandbox.db) ? ["opencode.db exists, though 1.1.65 writes only storage/"] : []),
        ],
      },
      {
        ...textTurn("Say hello.", "Hello! How can I help?", false),
        title: "Native 1.18 session",
        expect: 200,
        check: (ctx) => {
          const rows = fs.existsSync(ctx.sandbox.db) ? dbSessions(ctx) : [];
          ctx.nativeId = rows[0]?.id;
          return rows.length === 1 && !legacyIds(ctx).includes(rows[0].id)
            ? []
            : [`1.18.33 should hold only its own session in opencode.db (it does not import storage/), it holds ${rows.length}`];
        },
      },
      sessionList((ctx, listed) => [
        ...(listed.has(ctx.nativeId) ? [] : ["`opencode session list` does not list the 1.18.33 session"]),
        ...legacyIds(ctx)
          .filter((id) => listed.has(id))
          .map((id) => `\`opencode session list\` lists ${id} before the import (the bug this checks is gone?)`),
      ]),
      {
        recover: "import",
        args: (ctx) => ["--all", "--from", ctx.sandbox.storage],
        check(ctx) {
          const problems = [];
          for (const id of legacyIds(ctx)) {
            const messages = listFiles(path.join(ctx.sandbox.storage, "message", id)).map((f) => f.replace(/\.json$/, ""));
            const parts = messages.reduce((k, m) => k + listFiles(path.join(ctx.sandbox.storage, "part", m)).length, 0);
            const inDb = [count(ctx, "message", id), count(ctx, "part", id)];
            if (inDb[0] !== messages.length || inDb[1] !== parts)
              problems.push(`${id}: ${inDb.join(" / ")} messages / parts imported of ${messages.length} / ${parts}`);
          }
          const before = tableRows(path.join(ctx.out, `opencode.before-step-${ctx.scenario.steps.findIndex((s) => s.recover) + 1}.db`));
          const changed = changedBesides(before, tableRows(ctx.sandbox.db), legacyIds(ctx));
          if (changed.length) problems.push(`the import changed rows of other sessions: ${changed.join(", ")}`);
          const bad = unfaithful(ctx);
          if (bad.length) problems.push(`imported data differs from the storage/ files: ${bad.join(", ")}`);
          return problems;
        },
      },
      sessionList((ctx, listed) => {
        const native = listed.get(ctx.nativeId);
        const trees = treeSessions(ctx.sandbox.storage);
        return [
          ...(native ? [] : ["the 1.18.33 session is no longer listed"]),
          ...trees.filter((t) => listed.get(t.id)?.title !== t.title).map((t) => `${t.id} not listed with its title "${t.title}" after the import`),
          ...trees
            .filter((t) => listed.get(t.id)?.projectId !== native?.projectId || listed.get(t.id)?.directory !== native?.directory)
            .map((t) => `${t.id} listed under another project or directory than the 1.18.33 session`),
        ];
      }),
      {
        prompt: CONTINUE_PROMPT,
        resume: true,
        title: false,
        replies: [importedHistory],
        expect: 200,
        // The imported `ls` session is the one continued.
        edit(ctx) {
          const t = treeSessions(ctx.sandbox.storage).find((s) => s.title === "List project files");
          ctx.session = { id: t.id, db: true };
          return `continue the imported session ${t.id} ("${t.title}")`;
        },
        async check(ctx) {
          const problems = [];
          const sessions = dbSessions(ctx);
          if (sessions.length !== 3) problems.push(`opencode.db holds ${sessions.length} sessions, not 3: the client made a new one`);
          const texts = withDb(ctx.sandbox.db, (db) => db.prepare("SELECT data FROM part WHERE session_id = ?").all(ctx.session.id)).map(
            (p) => JSON.parse(p.data).text,
          );
          if (!texts.some((t) => t?.includes(CONTINUE_PROMPT)) || !texts.includes("It printed notes.txt."))
            problems.push("opencode.db lacks the new prompt or its reply in the imported session");
          // Every session here is minutes old: the plain scan leaves each last turn alone, --include-live judges it.
          for (const extra of [[], ["--include-live"]]) {
            const r = await runProcess(process.execPath, [RECOVER_BIN, "session", "scan", "--all", ...extra, "--store", ctx.sandbox.store, "--json"], {
              cwd: ctx.sandbox.cwd,
              env: { ...process.env, ...ctx.sandbox.recoverEnv, NO_COLOR: "1" },
              timeoutMs: 120_000,
              stdoutFile: path.join(ctx.out, `scan${extra.length ? "-include-live" : ""}.json`),
            });
            let findings = null;
            try {
              findings = JSON.parse(r.stdout).sessions.flatMap((s) => (s.findings ?? []).map((f) => `${s.id} ${f.rule ?? f.ruleId ?? f.id}`));
            } catch {}
            if (r.code !== 0 || !findings || findings.length)
              problems.push(`recover session scan --all ${extra.join(" ")} found ${findings ? findings.join(", ") : `no JSON (exit ${r.code})`}`);
          }
          return problems;
        },
      },
    ],
  },
};

export const scenarios = { ...capture, ...prefixScenarios(), ...importScenarios };
