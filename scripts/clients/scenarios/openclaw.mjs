// The openclaw scenarios (driver: ../openclaw.mjs): each builds the agent's main session with the real client, may
// edit the stored events, and continues it; the captured step's request is what the client sends for what it stored.
// fixtures/openclaw-2026.9 holds what they capture with 2026.9.6 (docs/research/openclaw-request.md: the findings).
//
// A step: { prompt, thinking?: level (--thinking), replies, edit?(ctx) -> note, kill?, expect? } (lib/engine.mjs). A
// scenario may set `model`, `reasoningModel: false` (the provider config without a model entry: the model then resolves
// with reasoning:false), `workspace` (files made in the agent's workspace before step 1), `versions` (the client
// versions it runs with) and `fixture: false` (no fixture files) or `fixture: "sqlite"` (the damaged SQLite store kept
// instead: fixtures/openclaw-2026.9-sqlite). A step with `argv` runs that command of the client, not an agent turn.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { httpError, reply, text, thinking, redacted, toolUse } from "../api/messages.mjs";
import * as messagesRules from "../api/messages-rules.mjs";
import { damageSqlite, editEvents, sqliteEvents, storePaths } from "../openclaw.mjs";

const SIG = (n) => `EsMockOpenclaw${n}SignatureAAAABBBBCCCCDDDDeeeeffff0000111122223333==`;
const isAssistant = (ev) => ev.type === "message" && ev.message?.role === "assistant";
const firstText = (ev) => ev.message?.content?.find?.((b) => b.type === "text")?.text;
const WORDS = ["one", "two", "three"];
const think = (i) => ({
  prompt: `Think, then say ${WORDS[i]}.`,
  thinking: "low",
  replies: [reply([thinking(`Thought ${WORDS[i]}.`, SIG(i + 1)), text(WORDS[i])])],
});
const threeThinkingTurns = [0, 1, 2].map(think);

/**
 * The captured fourth turn after three thinking turns, the stored events edited first: `fn(event, done)` changes an
 * event (and pushes what it did to `done`) or returns false.
 */
const sayFourAfter = (fn) => ({
  prompt: "Say four.",
  thinking: "low",
  replies: [reply([text("four")])],
  expect: 200,
  edit: (ctx) => {
    const done = [];
    editEvents(ctx, (ev) => fn(ev, done));
    return done.join("; ");
  },
});

// 2026.7 refuses a provider model it has no entry for before any request ("Anthropic Messages transport requires a
// positive maxTokens value"): the reasoning:false scenarios are 2026.9's.
const NO_MODEL_ENTRY = { reasoningModel: false, versions: ["2026.9.6"] };
const plain = {
  about: "two plain text turns; the second request is captured",
  ...NO_MODEL_ENTRY,
  steps: [
    { prompt: "Say hello.", replies: [reply([text("Hello! How can I help?")])] },
    { prompt: "Say it again.", replies: [reply([text("Hello again.")])], expect: 200 },
  ],
};
const thinkingTurns = {
  about: "two turns answered with thinking (made-up signature) + text, thinking level low; third turn captured",
  steps: [...threeThinkingTurns.slice(0, 2), { prompt: "Say three.", thinking: "low", replies: [reply([text("three")])], expect: 200 }],
};
const editThinking = {
  about:
    "three thinking+text turns; edits: turn one's thinking emptied, turn two's thinking block repeated 3 times, an empty text block appended to turn three; fourth turn captured",
  steps: [
    ...threeThinkingTurns,
    sayFourAfter((ev, done) => {
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
    }),
  ],
};

const TOOL_WORKSPACE = { "notes.txt": "alpha\nbeta\n" };
/** Two tool calls in one answer (exec `echo hi`, read notes.txt), the final answer, then one more turn. */
const toolTurns = [
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
  { prompt: "Thanks. Anything else?", thinking: "low", replies: [reply([text("No.")])], expect: 200 },
];

// The SQLite damage scenarios (docs/research/openclaw-sqlite-damage.md): the session built by the real 2026.9.6 client,
// damaged by an edit as users' stores show it, then one more turn that shows how the client fails. Most failures come
// before any request, so the step's `check` judges the exit code and the message; a repair loop (--loop) then runs
// recover and one more turn that must be accepted.
const SQLITE_DAMAGE = { versions: ["2026.9.6"], loop: true, fixture: "sqlite" };
const KEY = "agent:main:main";

/**
 * A continuation the damage makes fail: the client exits `exit` (a number, or "nonzero") with `message` (a RegExp) in
 * what it printed, having sent `requests` main requests (default 0: it fails before asking the API anything).
 */
const failsWith = ({ exit = "nonzero", message, requests = 0 }) => ({
  prompt: "Continue.",
  replies: [reply([text("Continuing.")])],
  check(ctx, r) {
    const problems = [];
    const printed = `${r.stdout}\n${r.stderr}`;
    if (exit === "nonzero" ? r.code === 0 : r.code !== exit) problems.push(`the client exited ${r.code ?? r.signal}, expected ${exit}`);
    if (!message.test(printed)) problems.push(`the client did not print /${message.source}/`);
    const sent = mainRequests(ctx, this).length;
    if (sent !== requests) problems.push(`the client sent ${sent} request(s), expected ${requests}`);
    return problems;
  },
});

/** The main /v1/messages requests step `step` (a step object of the running scenario: a check's `this`) sent. */
function mainRequests(ctx, step) {
  const n = ctx.scenario.steps.indexOf(step) + 1;
  if (n === 0) throw new Error("a check of a step not in the scenario");
  const log = path.join(ctx.out, "requests.jsonl");
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.main && e.tag === n);
}

/** The seq of the first stored event `pick(event)` chooses (the session's events in order). */
function seqOf(ctx, pick, what) {
  const e = sqliteEvents(ctx).find((x) => x.event && pick(x.event));
  if (!e) throw new Error(`no stored event: ${what}`);
  return e.seq;
}
const assistantSaying = (word) => (ev) => isAssistant(ev) && firstText(ev) === word;
const twoThinkingTurns = threeThinkingTurns.slice(0, 2);
// A long, varied answer (~4 KB): the client stores it compressed (event_zstd) as it does every row it can shrink.
const LONG_ANSWER = Array.from({ length: 60 }, (_, i) => `Line ${i + 1}: step ${i * 7} of the plan checks ${WORDS[i % 3]} and item ${i * i}.`).join("\n");

/** Where openclaw doctor moves the legacy transcripts it imported or refused. */
const importArchive = (ctx) => path.join(path.dirname(storePaths(ctx).sessions), "session-sqlite-import-archive");
/** The session id of the one transcript doctor archived (`archive-tier.<id>.jsonl.imported-<ms>`). */
function archivedSessionId(ctx) {
  const names = fs.readdirSync(importArchive(ctx)).filter((f) => /\.jsonl\.imported-\d+$/.test(f) && !f.includes(".trajectory."));
  const ids = names.map((f) => f.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i)?.[0]).filter(Boolean);
  if (ids.length !== 1) throw new Error(`expected one archived transcript in ${importArchive(ctx)}, found ${names.join(", ") || "none"}`);
  return ids[0];
}

/** The latest assistant turn's thinking text edited in place (its signature kept), as a hand edit or a buggy tool does. */
function editLatestThinking(ctx) {
  const done = [];
  editEvents(ctx, (ev) => {
    if (!assistantSaying("two")(ev)) return false;
    for (const b of ev.message.content) if (b.type === "thinking") b.thinking = "Thought two, edited.";
    done.push("turn two (the latest): thinking text 'Thought two.' -> 'Thought two, edited.' (signature kept)");
    return true;
  });
  return done.join("; ");
}

/** The API's refusal of a modified latest thinking block at messages.N.content.M (the mock's wording is the API's). */
const thinkingModified = (n, m) => messagesRules.RULES.find((r) => r.id === "thinking_modified").error(n, m);

const sqliteScenarios = {
  "healthy-sqlite": {
    ...SQLITE_DAMAGE,
    about:
      "control: a thinking turn with two tool calls (exec, read), a thinking turn, no damage; the continuation is accepted and recover must change nothing",
    // The `tool` scenario's turns (below), in the SQLite store.
    workspace: TOOL_WORKSPACE,
    steps: toolTurns,
  },
  "torn-event": {
    ...SQLITE_DAMAGE,
    about: "two thinking turns; turn one's assistant event_json torn mid-string (a crash mid-write); the next turn crashes on the JSON before any request",
    steps: [
      ...twoThinkingTurns,
      {
        ...failsWith({ message: /Unterminated string in JSON at position \d+/ }),
        edit: (ctx) => damageSqlite(ctx, "tear", ctx.session.id, seqOf(ctx, assistantSaying("one"), "turn one's answer")),
      },
    ],
  },
  "corrupt-zstd": {
    ...SQLITE_DAMAGE,
    about:
      "a turn answered with a ~4 KB text (stored as event_zstd), then a thinking turn; one byte of the compressed row flipped; the next turn fails the zstd checksum",
    steps: [
      { prompt: "Write the plan out, line by line.", replies: [reply([text(LONG_ANSWER)])] },
      threeThinkingTurns[1],
      {
        ...failsWith({ message: /Restored data doesn't match checksum/ }),
        edit: (ctx) => {
          const seq = seqOf(ctx, (ev) => isAssistant(ev) && firstText(ev) === LONG_ANSWER, "the long answer");
          return `${damageSqlite(ctx, "zstd", ctx.session.id, seq)}; ${damageSqlite(ctx, "corrupt-zstd", ctx.session.id, seq)}`;
        },
      },
    ],
  },
  "missing-window": {
    ...SQLITE_DAMAGE,
    about: "two thinking turns; the session's session_windows row deleted with foreign keys off (its events stay); the next turn fails the foreign key check",
    steps: [
      ...twoThinkingTurns,
      { ...failsWith({ message: /SQLite foreign_key_check failed/ }), edit: (ctx) => damageSqlite(ctx, "drop-window", ctx.session.id) },
    ],
  },
  "dangling-node": {
    ...SQLITE_DAMAGE,
    about: "two thinking turns; session_nodes.current_session_id of agent:main:main pointed at an id with no rows; the next turn refuses the session row",
    steps: [
      ...twoThinkingTurns,
      {
        ...failsWith({ message: /invalid persisted session row requires repair for agent:main:main.*run openclaw doctor --fix/s }),
        edit: (ctx) => damageSqlite(ctx, "dangle", KEY, randomUUID()),
      },
    ],
  },
  "edited-thinking-latest": {
    ...SQLITE_DAMAGE,
    // The client mends it by itself: its retry without thinking is accepted and stored as the active branch. The user
    // saw an answer, so the loop's repair is the plain one (no error text), and it must find nothing left to change.
    loop: { withError: false },
    model: "claude-sonnet-4-6",
    // The API's rules apply (the mock refuses a modified latest thinking block, as the API does).
    enforce: true,
    about:
      "claude-sonnet-4-6, two thinking turns; the latest assistant turn's thinking text edited in event_json; the next request is refused (thinking_modified)",
    steps: [
      ...twoThinkingTurns,
      {
        prompt: "Say three.",
        thinking: "low",
        replies: [reply([text("three")]), reply([text("three")])],
        expect: 400,
        expectRule: "thinking_modified",
        // What 2026.9.6 does with the refusal: one retry with every thinking block stripped (the unedited turn's too),
        // accepted, and the stripped copies written back as a side branch the session's leaf then points at.
        check(ctx, r) {
          const [refused, retry, ...more] = mainRequests(ctx, this);
          const problems = [];
          if (!refused || !retry || more.length) problems.push(`expected 2 requests (refused, retried), got ${mainRequests(ctx, this).length}`);
          const thinkingLeft = retry?.body?.messages?.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "thinking").length;
          if (thinkingLeft !== 0) problems.push(`the retry still sent ${thinkingLeft} thinking block(s)`);
          if (r.code !== 0 || !r.stdout.includes("three")) problems.push(`the client exited ${r.code ?? r.signal} without printing the retry's answer`);
          if (!sqliteEvents(ctx).some((e) => e.event?.type === "leaf")) problems.push("the client wrote no leaf event (no side branch)");
          return problems;
        },
        edit: editLatestThinking,
      },
    ],
  },
  "edited-thinking-latest-repaired": {
    versions: ["2026.9.6"],
    model: "claude-sonnet-4-6",
    enforce: true,
    fixture: false,
    about:
      "claude-sonnet-4-6, two thinking turns; the latest turn's thinking edited, then recover repairs it with the API's text before the client runs again: only that turn goes, turn one keeps its thinking (the client's own retry would strip every turn's)",
    steps: [
      ...twoThinkingTurns,
      // The refusal as the API words it for this history: the latest assistant message is messages.3 (u, a, u, a).
      { recover: "repair", withError: false, edit: editLatestThinking, args: ["--error", thinkingModified(3, 0)] },
      {
        prompt: "Say three.",
        thinking: "low",
        replies: [reply([text("three")])],
        expect: 200,
        check(ctx) {
          const [sent] = mainRequests(ctx, this);
          const thinkingTexts = (sent?.body?.messages ?? [])
            .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
            .filter((b) => b.type === "thinking")
            .map((b) => b.thinking);
          return thinkingTexts.join("|") === "Thought one." ? [] : [`expected turn one's thinking alone to be sent, got ${JSON.stringify(thinkingTexts)}`];
        },
      },
    ],
  },
  "legacy-refused": {
    ...SQLITE_DAMAGE,
    // The repair is an import of the transcript doctor refused (it moved it to its import archive), and the session
    // goes on by its id: the key agent:main:main goes on continuing the empty session the client started meanwhile.
    loop: {
      command: "import",
      recoverArgs: (ctx) => ["--all", "--from", importArchive(ctx)],
      resumeArgs: (ctx) => ["--session-id", archivedSessionId(ctx)],
      prompt: "What did I ask you before?",
    },
    // The legacy files doctor refused, as the edit left them (doctor then moves them to its import archive).
    legacySessionsStep: 3,
    about:
      "2026.7.35 writes two turns as sessions/<id>.jsonl; the file renamed to another session id and dropped from sessions.json; 2026.9.6's doctor refuses to import it; the next 2026.9.6 turn starts an empty session",
    steps: [
      { ...threeThinkingTurns[0], version: "2026.7.35" },
      { ...threeThinkingTurns[1], version: "2026.7.35" },
      {
        // The upgrade as users run it: 2026.9.6 refuses to start on 2026.7's state database until `doctor --fix`
        // migrates it ("has a legacy agent database registry schema"), which is also what imports sessions/.
        argv: ["doctor", "--fix", "--non-interactive"],
        edit: (ctx) => {
          const { sessions } = storePaths(ctx);
          const other = randomUUID();
          fs.renameSync(path.join(sessions, `${ctx.session.id}.jsonl`), path.join(sessions, `${other}.jsonl`));
          const indexFile = path.join(sessions, "sessions.json");
          const index = JSON.parse(fs.readFileSync(indexFile, "utf8"));
          delete index[KEY];
          fs.writeFileSync(indexFile, `${JSON.stringify(index, null, 2)}\n`);
          return `sessions/${ctx.session.id}.jsonl renamed to ${other}.jsonl (its header keeps id ${ctx.session.id}); ${KEY} removed from sessions.json`;
        },
        check(_ctx, r) {
          // Doctor succeeds (exit 0) and defers the file: [historical_transcript_deferred] … <file>: Error: Primary
          // transcript header does not match its original filename (its box wraps the line: spaces and │ between words).
          const printed = `${r.stdout}\n${r.stderr}`.replace(/[\s│]+/g, " ");
          const problems = r.code === 0 ? [] : [`doctor exited ${r.code ?? r.signal}, expected 0`];
          if (!/historical_transcript_deferred.*Primary transcript header does not match its original filename/.test(printed))
            problems.push("doctor did not defer the transcript with 'Primary transcript header does not match its original filename'");
          return problems;
        },
      },
      {
        prompt: "What did I ask you before?",
        replies: [reply([text("I see no earlier messages.")])],
        expect: 200,
        check(ctx) {
          // An empty session: no assistant turn and none of the legacy prompts (the request holds the new prompt and
          // 2026.9's runtime-context user message only).
          const messages = mainRequests(ctx, this)[0]?.body?.messages ?? [];
          const earlier = messages.filter((m) => m.role === "assistant" || JSON.stringify(m.content).includes("Think, then say"));
          return messages.length && !earlier.length
            ? []
            : [`expected an empty session, got ${messages.length} message(s), ${earlier.length} from the legacy transcript`];
        },
      },
    ],
  },
};

// openclaw/openclaw#21985 (#8264, #9769): a turn a fallback provider ended with stopReason "toolUse" but no usable
// tool call, and the synthetic result the client of early 2026 made for it, with an empty toolCallId. Neither checked
// client writes it any more (both give a blank streamed call id one of their own: 2026.7.35 `call_auto_1`, 2026.9.6
// `call_<24 hex>`), so the shape is planted as the reports show it, in a store the client wrote.
const PHANTOM_RESULT = "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair.";
/** The synthetic result of early 2026 (no `details`: it had none), for a call id `id`. */
const phantomOf = (m, id) => Object.assign(m, { toolCallId: id, toolName: "", content: [{ type: "text", text: PHANTOM_RESULT }], isError: true });
const phantomToolResult = {
  versions: ["2026.7.35", "2026.9.6"],
  enforce: true,
  fixture: "sqlite",
  // The client copes (it drops both before sending), so the user saw no refusal: the plain repair.
  loop: { withError: false },
  about:
    "two exec turns; turn one's call taken out (its text and stopReason toolUse kept) and its result made the synthetic one with toolCallId ''; turn two's call and result given the id '' (the result synthetic too); the next turn is accepted",
  steps: [
    {
      prompt: "Run echo two.",
      replies: [reply([text("Running it."), toolUse("toolu_mock_exec_03", "exec", { command: "echo two" })]), reply([text("Done.")])],
    },
    { prompt: "Run echo three.", replies: [reply([toolUse("toolu_mock_exec_04", "exec", { command: "echo three" })]), reply([text("Done three.")])] },
    {
      prompt: "Continue.",
      replies: [reply([text("Continuing.")])],
      expect: 200,
      edit: (ctx) => {
        const done = [];
        editEvents(ctx, (ev) => {
          const m = ev.type === "message" ? ev.message : null;
          const call = m?.role === "assistant" ? m.content.find((b) => b.type === "toolCall") : undefined;
          if (call?.arguments?.command === "echo two") {
            m.content = m.content.filter((b) => b !== call);
            done.push(`turn one: its toolCall taken out (text kept, stopReason ${m.stopReason})`);
            return true;
          }
          if (call?.arguments?.command === "echo three") {
            call.id = "";
            done.push("turn two: its toolCall's id set to ''");
            return true;
          }
          const said = m?.role === "toolResult" ? m.content?.[0]?.text : undefined;
          if (said === "two" || said === "three") {
            phantomOf(m, "");
            delete m.details;
            done.push(`the result '${said}': the synthetic one, toolCallId '' and toolName ''`);
            return true;
          }
          return false;
        });
        return done.join("; ");
      },
      // Sent: neither phantom result, no call with an empty id (the turns' texts stay).
      check(ctx) {
        const sent = (mainRequests(ctx, this)[0]?.body?.messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
        const bad = sent.filter((b) => (b.type === "tool_use" && !b.id) || b.type === "tool_result");
        return bad.length ? [`sent ${bad.length} tool block(s) of the phantom turns: ${JSON.stringify(bad).slice(0, 300)}`] : [];
      },
    },
  ],
};

// Issue 40 row 13 (openclaw/openclaw#13611, #92043, #118923): a session over the model's window whose compaction fails
// too, frozen across restarts. 2026.9.6 answers `prompt is too long` with its auto-compaction (up to 3 attempts); when
// the summary request is refused as well, it cancels the compaction ("to preserve history", no compaction event is
// written), stores the refused turn as an assistant error and prints its own text (OPENCLAW_OVERFLOW); the next run
// does the same (docs/research/openclaw-compaction.md).
const OPENCLAW_OVERFLOW = "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model.";
/** Just above every request the mock has seen so far: the session's next turn does not fit (as opencode's prefix-overflow). */
const windowJustAbove = (ctx) =>
  Math.max(
    ...fs
      .readFileSync(path.join(ctx.out, "requests.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((q) => q.method === "POST" && q.body?.messages)
      .map((q) => messagesRules.requestTokens(q.body)),
  ) + 20;
/**
 * The compaction's summary request refused with the API's overflow text. Scripted: the summary request (the history
 * as one text, no system prompt or tools) is smaller than the main loop's window here, so it is refused as by a
 * compaction model whose window it is over by a fifth; in the reports the history itself is over the window.
 */
const refuseSummary = (body) => {
  const tokens = messagesRules.requestTokens(body);
  return httpError(400, "invalid_request_error", `prompt is too long: ${tokens} tokens > ${Math.floor(tokens * 0.8)} maximum`);
};
/** The client's overflow text printed, its compaction failed (no summary accepted), and no compaction event stored. */
function compactionFailed(ctx, r) {
  const n = ctx.scenario.steps.indexOf(this) + 1;
  const side = fs
    .readFileSync(path.join(ctx.out, "requests.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.tag === n && !e.main && e.method === "POST");
  const problems = [];
  if (r.code === 0) problems.push("the client exited 0");
  if (!`${r.stdout}\n${r.stderr}`.includes(OPENCLAW_OVERFLOW)) problems.push("the client did not print its overflow text");
  // Its compaction was tried and failed. The summary requests that reach the mock are refused; one run's never did
  // (`Turn prefix summarization failed: fetch failed`, the mock saw no request: not understood), which is a failed
  // compaction all the same.
  if (!/auto-compaction failed/.test(r.stderr)) problems.push("the client did not try (and fail) to compact");
  if (side.some((e) => e.answer?.status !== 400)) problems.push("a summary request was accepted");
  if (sqliteEvents(ctx).some((e) => e.event?.type === "compaction")) problems.push("the client stored a compaction event");
  return problems;
}
/** 1,600 numbered lines (~64 KB): the `cat` that makes the history long enough for the client to compact. */
const bigFile = () =>
  `${Array.from({ length: 1600 }, (_, i) => `${String(i + 1).padStart(5, "0")} lorem ipsum dolor sit amet consectetur ${(i * 7919) % 10007}`).join("\n")}\n`;
const overflowTurn = (prompt, word) => ({
  prompt,
  replies: Array.from({ length: 4 }, () => reply([text(word)])),
  expect: 400,
  expectRule: "prompt_too_long",
  side: refuseSummary,
  check: compactionFailed,
});
const compactionOverflow = {
  versions: ["2026.9.6"],
  enforce: true,
  fixture: "sqlite",
  // The repair as the user has it: openclaw's own text, pasted (its count is the one the client stored).
  loop: { withError: false, recoverArgs: ["--error", OPENCLAW_OVERFLOW] },
  workspace: { "big.txt": bigFile() },
  about:
    "exec `cat big.txt` (~64 KB), then a plain turn; the window set just above every request so far; the next turn is refused (prompt is too long), the client's auto-compaction fails (its summary requests refused the same way) and it gives up; a new run does the same",
  steps: [
    {
      prompt: "Run cat big.txt.",
      replies: [reply([toolUse("toolu_mock_cat_01", "exec", { command: "cat big.txt" })]), reply([text("It is a long numbered list.")])],
    },
    { prompt: "Say two.", replies: [reply([text("two")])] },
    { ...overflowTurn("Say three.", "three"), contextLimit: windowJustAbove },
    // A new process, the same session: frozen across restarts.
    overflowTurn("Say four.", "four"),
  ],
};

// Ids the client re-numbers or drops before sending, measured (the copes of openclaw's dialects): a call id reused by
// a later turn, and a second result for one call (with the call whose result it took left without one).
const duplicateIds = {
  versions: ["2026.9.6"],
  enforce: true,
  fixture: "sqlite",
  loop: { withError: false },
  about:
    "two exec calls in one answer (a, b), then a third turn (c); edits: turn three's call and result take a's id; b's result takes a's id too (a second result for a, b left without one); the next turn",
  steps: [
    {
      prompt: "Run echo a and echo b.",
      replies: [
        reply([toolUse("toolu_mock_a_01", "exec", { command: "echo a" }), toolUse("toolu_mock_b_02", "exec", { command: "echo b" })]),
        reply([text("Both done.")]),
      ],
    },
    { prompt: "Run echo c.", replies: [reply([toolUse("toolu_mock_c_03", "exec", { command: "echo c" })]), reply([text("Done c.")])] },
    {
      prompt: "Continue.",
      replies: [reply([text("Continuing.")])],
      expect: 200,
      edit: (ctx) => {
        const done = [];
        editEvents(ctx, (ev) => {
          const m = ev.type === "message" ? ev.message : null;
          const call = m?.role === "assistant" ? m.content.find((b) => b.type === "toolCall" && b.id === "toolu_mock_c_03") : undefined;
          if (call) {
            call.id = "toolu_mock_a_01";
            done.push("turn three's call: id toolu_mock_a_01 (reused)");
            return true;
          }
          if (m?.role === "toolResult" && (m.toolCallId === "toolu_mock_c_03" || m.toolCallId === "toolu_mock_b_02")) {
            done.push(`the result of ${m.toolCallId}: toolCallId toolu_mock_a_01`);
            m.toolCallId = "toolu_mock_a_01";
            return true;
          }
          return false;
        });
        return done.join("; ");
      },
    },
  ],
};

export const scenarios = {
  plain,
  thinking: thinkingTurns,
  "thinking-off": {
    about: "a thinking+text turn at low, then the captured turn with thinking off (does the client still send the stored thinking?)",
    steps: [threeThinkingTurns[0], { prompt: "Say two.", thinking: "off", replies: [reply([text("two")])], expect: 200 }],
  },
  redacted: {
    about: "a turn answered with redacted_thinking + thinking + text; next turn captured",
    steps: [
      {
        prompt: "Think, then say one.",
        thinking: "low",
        replies: [reply([redacted("EmRedactedMockPayload0001=="), thinking("Thought one.", SIG(1)), text("one")])],
      },
      { prompt: "Say two.", thinking: "low", replies: [reply([text("two")])], expect: 200 },
    ],
  },
  tool: {
    about: "a turn answered with two tool calls in one message (exec `echo hi`, read notes.txt), then the final answer; next turn captured",
    workspace: TOOL_WORKSPACE,
    steps: toolTurns,
  },
  "edit-thinking": editThinking,
  "edit-thinking-reasoning-false": { ...editThinking, about: `${editThinking.about}; the model resolves with reasoning:false`, ...NO_MODEL_ENTRY },
  "edit-more": {
    about:
      "three turns; edits: turn one's only thinking made whitespace, turn two rewritten to stopReason 'error' + errorMessage (content kept), turn three's content emptied and stopReason 'error'; an empty user text block; fourth turn captured",
    steps: [
      ...threeThinkingTurns,
      sayFourAfter((ev, done) => {
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
      }),
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
      { prompt: "Say three.", replies: [reply([text("three")])], expect: 200 },
    ],
  },
  "thinking-sonnet-4-6": { ...thinkingTurns, about: `${thinkingTurns.about}; claude-sonnet-4-6 (adaptive thinking)`, model: "claude-sonnet-4-6" },
  "edit-thinking-sonnet-4-6": { ...editThinking, about: `${editThinking.about}; claude-sonnet-4-6`, model: "claude-sonnet-4-6" },
  // The interrupted call: 2026.7 is repaired in its JSONL transcript; 2026.9 answers it itself in every request ("No
  // result provided"), which recover reports as a warning and leaves alone in its database.
  "killed-mid-call": {
    loop: true,
    smoke: true,
    // A repair loop, not a request capture: on 2026.9 the store it leaves is kept (fixtures/openclaw-2026.9-sqlite),
    // a session whose interrupted call the client answers in every request.
    fixture: "sqlite",
    about: "exec `sleep 60`; the client (and its children) SIGKILLed 3 s after the tool call was answered; then resume",
    steps: [
      {
        prompt: "Run `sleep 60`.",
        replies: [reply([toolUse("toolu_mock_sleep_01", "exec", { command: "sleep 60" })]), reply([text("Slept.")])],
        kill: { afterRequest: 1, afterMs: 3000 },
      },
      // The client heals the interrupted call itself when it builds the request (a synthetic error tool_result).
      { prompt: "What happened?", resume: true, replies: [reply([text("The command was interrupted.")])], expect: 200 },
    ],
  },
  // Issue 40, row 16's audit (docs/research/severity-audit.md): a call left without a result in a turn that ended
  // `aborted` (the user stopped it mid-call), which recover's repair drops rather than answers (openclaw #4597). What
  // the client sends for it decides whether tool-result-missing is an error there.
  "aborted-call": {
    versions: ["2026.7.35", "2026.9.6"],
    enforce: true,
    fixture: false,
    about: "exec `sleep 60`; the client SIGKILLed 3 s after the call was answered; the stored call's turn made stopReason 'aborted'; then resume",
    steps: [
      {
        prompt: "Run `sleep 60`.",
        replies: [reply([toolUse("toolu_mock_sleep_01", "exec", { command: "sleep 60" })]), reply([text("Slept.")])],
        kill: { afterRequest: 1, afterMs: 3000 },
      },
      {
        prompt: "What happened?",
        resume: true,
        replies: [reply([text("The command was interrupted.")])],
        expect: 200,
        edit: (ctx) => {
          const done = [];
          editEvents(ctx, (ev) => {
            const m = ev.type === "message" ? ev.message : null;
            if (m?.role !== "assistant" || !m.content?.some((b) => b.type === "toolCall")) return false;
            done.push(`the call's turn: stopReason ${m.stopReason} -> aborted`);
            m.stopReason = "aborted";
            return true;
          });
          return done.join("; ");
        },
      },
    ],
  },
  ...sqliteScenarios,
  "phantom-tool-result": phantomToolResult,
  "compaction-overflow": compactionOverflow,
  "duplicate-ids": duplicateIds,
};
