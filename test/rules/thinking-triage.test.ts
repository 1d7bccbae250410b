// empty-thinking and duplicate-thinking through the RuleTester, on each store family written in memory: opencode
// (its SQLite rows), Claude Code lines and openclaw lines. A thinking block with no text cannot be refilled and its
// signature cannot be made up, so it goes (in the latest tool-use turn, whose thinking the API forbids changing, the
// turn goes whole with its results); a thinking block repeated in one message loses only its repeats.
import { describe, expect, it } from "vitest";
import { duplicateThinking } from "../../src/rules/duplicate-thinking.js";
import { emptyThinking } from "../../src/rules/empty-thinking.js";
import { planSession } from "../../src/plan/planner.js";
import { DEFAULT_RULE_OPTIONS } from "../../src/rules/rule.js";
import { transcriptFixing } from "../../src/stores/transcript/working.js";
import { findingsOf, loadRecords, ruleTester } from "../support/rule-tester.js";
import { FORMATS, HOUR, lastWrite, scan, sessionOf, storeOf } from "./harness.js";

const T0 = "2026-04-06T14:00:00.000Z";
const T1 = "2026-04-06T14:00:05.000Z";
const T2 = "2026-04-06T14:00:09.000Z";
const T3 = "2026-04-06T14:05:00.000Z";
const T4 = "2026-04-06T14:05:04.000Z";
const MS0 = Date.parse(T0);

const SIG_A = "EqQBCkgIBxABGAIiQLM0dPYqZxJ7vK3v0n2d9mJz8h0S2pA6e4tq1o9nV+f5cD8kR1wXyB6sL2aQ3mZ7uH4iN0oP5qT9rE1yW2xA==";
const SIG_B = "EqQBCkgIBxABGAIiQFz1m9Qe7Rj2Ww4uYc0kN8hS3pL6tD1oV5bX9aM2gE7fK4rJ0iH8sU3nC6yT1qP5wZ2vB9lA0xO7dG4eI==";
const REDACTED_A = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP";
const REDACTED_B = "EmwKAhgBEgyQ8r2b1nW4/KtXm7daDG0Ue5Yz2pL9c1vN4sIwRjK8hT3aF6qB0mS";

const line = (v: unknown) => JSON.stringify(v);
const file = (lines: unknown[]) => `${lines.map(line).join("\n")}\n`;

/** Claude Code lines, one content block each, linked by uuid; a response's lines share message.id. */
const claude = {
  user: (uuid: string, parentUuid: string | null, content: unknown, timestamp = T0) => ({
    parentUuid,
    isSidechain: false,
    type: "user",
    message: { role: "user", content },
    uuid,
    timestamp,
    sessionId: "s1",
    cwd: "/w",
  }),
  assistant: (uuid: string, parentUuid: string, id: string, block: unknown, timestamp = T1) => ({
    parentUuid,
    isSidechain: false,
    type: "assistant",
    message: { id, role: "assistant", model: "claude-sonnet-4-5", content: [block] },
    uuid,
    timestamp,
    sessionId: "s1",
    cwd: "/w",
  }),
  result: (uuid: string, parentUuid: string, toolUseId: string, content: string, timestamp = T2) => ({
    parentUuid,
    isSidechain: false,
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, content }] },
    uuid,
    timestamp,
    sessionId: "s1",
    cwd: "/w",
    sourceToolAssistantUUID: parentUuid,
  }),
};

/**
 * openclaw (pi) entries: a header, then messages linked by id; an assistant response is one line. The model is one
 * whose earlier turns' thinking openclaw replays (sonnet-4-6); for sonnet-4-5 it sends only the latest turn's.
 */
const pi = {
  header: { type: "session", version: 3, id: "s1", timestamp: T0, cwd: "/w" },
  user: (id: string, parentId: string | null, content: unknown, timestamp = T0) => ({
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "user", content, timestamp: Date.parse(timestamp) },
  }),
  assistant: (id: string, parentId: string, content: unknown[], stopReason: string, timestamp = T1, model = "claude-sonnet-4-6") => ({
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "assistant", content, provider: "anthropic", model, stopReason, timestamp: Date.parse(timestamp) },
  }),
  result: (id: string, parentId: string, toolCallId: string, text: string, timestamp = T2) => ({
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "toolResult", toolCallId, toolName: "bash", content: [{ type: "text", text }], isError: false, timestamp: Date.parse(timestamp) },
  }),
};

const thinking = (text: string, signature = SIG_A) => ({ type: "thinking", thinking: text, signature });
const piThinking = (text: string, thinkingSignature = SIG_A) => ({ type: "thinking", thinking: text, thinkingSignature });
/** How pi stores a redacted_thinking block: a placeholder text, the encrypted data as its signature. */
const piRedacted = (data: string) => ({ type: "thinking", thinking: "[Reasoning redacted]", thinkingSignature: data, redacted: true });
const call = { type: "tool_use", id: "toolu_01AAAAAAAAAAAAAAAAAAAAAA", name: "Bash", input: { command: "npx prisma migrate status" } };
const piCall = { type: "toolCall", id: "toolu_01BBBBBBBBBBBBBBBBBBBBBB", name: "bash", arguments: { command: "npx prisma migrate status" } };

// ---------------------------------------------------------------------------------------------
// opencode rows
// ---------------------------------------------------------------------------------------------

const MODEL = { providerID: "anthropic", modelID: "claude-sonnet-4-5" };
const userInfo = (created: number) => ({ role: "user", time: { created }, agent: "build", model: MODEL });
const assistantInfo = (created: number, parentID: string, finish: string) => ({
  role: "assistant",
  time: { created, completed: created + 4000 },
  parentID,
  modelID: MODEL.modelID,
  providerID: MODEL.providerID,
  mode: "build",
  agent: "build",
  path: { cwd: "/w", root: "/w" },
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  finish,
});
const text = (t: string) => ({ type: "text", text: t, time: { start: MS0, end: MS0 + 10 } });
const reasoning = (t: string, metadata?: Record<string, unknown>) => ({
  type: "reasoning",
  text: t,
  time: { start: MS0, end: MS0 + 10 },
  ...(metadata ? { metadata } : {}),
});
const signed = (t: string, signature = SIG_A) => reasoning(t, { anthropic: { signature } });
const tool = (callID: string) => ({
  type: "tool",
  callID,
  tool: "bash",
  state: {
    status: "completed",
    input: { command: "npx prisma migrate status" },
    output: "1 migration pending",
    title: "bash",
    metadata: {},
    time: { start: MS0, end: MS0 + 20 },
  },
});
const stepStart = { type: "step-start" };
const stepFinish = (reason: string) => ({ type: "step-finish", reason, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } });

/** A prompt, then one finished reply holding `parts` (ids prt_1…), then (with `more`) a second prompt and reply. */
function opencode(parts: Record<string, unknown>[], more?: Record<string, unknown>[]) {
  const messages: { id: string; info: Record<string, unknown>; parts: { id: string; data: Record<string, unknown> }[] }[] = [
    { id: "msg_0001", info: userInfo(MS0), parts: [{ id: "prt_0000", data: text("Check the migration status.") }] },
    { id: "msg_0002", info: assistantInfo(MS0 + 1000, "msg_0001", "stop"), parts: parts.map((data, i) => ({ id: `prt_${i + 1}`, data })) },
  ];
  if (more) {
    messages.push(
      { id: "msg_0003", info: userInfo(MS0 + 60_000), parts: [{ id: "prt_0100", data: text("And the seed data?") }] },
      { id: "msg_0004", info: assistantInfo(MS0 + 61_000, "msg_0003", "stop"), parts: more.map((data, i) => ({ id: `prt_01${i + 1}`, data })) },
    );
  }
  return { messages };
}

const EMPTY_REASON = "removed the thinking block that holds no text (it cannot be refilled, and a signature cannot be made up)";
const LATEST_TURN =
  "; it is in the latest tool-use turn, whose thinking the API forbids changing, so the whole turn is taken out (kept in the backup) and the model redoes the step";
const EMPTY_MESSAGE = "thinking block with no text is sent to the provider (rejected: `each thinking block must contain non-whitespace thinking`)";

// ---------------------------------------------------------------------------------------------
// empty-thinking
// ---------------------------------------------------------------------------------------------

ruleTester(emptyThinking, {
  valid: [
    {
      name: "opencode: signed reasoning with text",
      records: opencode([stepStart, signed("Run prisma migrate status."), text("One migration is pending."), stepFinish("stop")]),
    },
    {
      name: "opencode: unsigned empty reasoning, which opencode leaves out of the request",
      records: opencode([stepStart, reasoning(""), text("One migration is pending."), stepFinish("stop")]),
    },
    {
      name: "opencode: unsigned whitespace reasoning with an empty signature string (no signature)",
      records: opencode([stepStart, reasoning("  \n", { anthropic: { signature: "" } }), text("One migration is pending."), stepFinish("stop")]),
    },
    {
      name: "opencode: redacted thinking, whose empty text is not what is sent",
      records: opencode([stepStart, reasoning("", { anthropic: { redactedData: REDACTED_A } }), text("One migration is pending."), stepFinish("stop")]),
    },
    {
      name: "Claude Code: thinking with text",
      records: {
        dialect: "claude",
        lines: [
          claude.user("u1", null, "rename the config loader"),
          claude.assistant("a1", "u1", "msg_1", thinking("Look at config.ts first.")),
          claude.assistant("a2", "a1", "msg_1", { type: "text", text: "Renamed it." }),
        ],
      },
    },
    {
      name: "Claude Code: redacted thinking (data, no text)",
      records: {
        dialect: "claude",
        lines: [
          claude.user("u1", null, "rename the config loader"),
          claude.assistant("a1", "u1", "msg_1", { type: "redacted_thinking", data: REDACTED_A }),
          claude.assistant("a2", "a1", "msg_1", { type: "text", text: "Renamed it." }),
        ],
      },
    },
    {
      name: "openclaw: thinking with text, and redacted thinking whatever its text",
      records: {
        dialect: "openclaw",
        lines: [
          pi.header,
          pi.user("aaaa0001", null, "rename the config loader"),
          pi.assistant(
            "aaaa0002",
            "aaaa0001",
            [piThinking("Look at config.ts first."), { ...piRedacted(REDACTED_A), thinking: "" }, { type: "text", text: "Renamed it." }],
            "stop",
          ),
        ],
      },
    },
    {
      name: "openclaw: unsigned empty thinking, which openclaw never sends",
      records: {
        dialect: "openclaw",
        lines: [
          pi.header,
          pi.user("aaaa0001", null, "rename the config loader"),
          pi.assistant(
            "aaaa0002",
            "aaaa0001",
            [
              { type: "thinking", thinking: "" },
              { type: "text", text: "Renamed it." },
            ],
            "stop",
          ),
        ],
      },
    },
    {
      name: "openclaw on claude-sonnet-4-5: whitespace thinking in an earlier turn, which its model policy never replays",
      records: {
        dialect: "openclaw",
        lines: [
          pi.header,
          pi.user("aaaa0001", null, "rename the config loader"),
          pi.assistant("aaaa0002", "aaaa0001", [piThinking("\n\n"), { type: "text", text: "Renamed it." }], "stop", T1, "claude-sonnet-4-5"),
          pi.user("aaaa0003", "aaaa0002", "now run the tests", T3),
          pi.assistant("aaaa0004", "aaaa0003", [piThinking("Run them."), { type: "text", text: "All green." }], "stop", T4, "claude-sonnet-4-5"),
        ],
      },
    },
  ],
  invalid: [
    {
      name: "opencode: signed empty reasoning in an earlier turn: only that part goes",
      records: opencode(
        [stepStart, signed(""), text("One migration is pending."), stepFinish("stop")],
        [stepStart, signed("Seeds run after migrations."), text("The seed data is current."), stepFinish("stop")],
      ),
      findings: [{ messageId: "msg_0002", partId: "prt_2", severity: "error", message: EMPTY_MESSAGE }],
      changes: [{ op: "delete", reasons: [`${EMPTY_REASON} (kept verbatim in the backup)`] }],
    },
    {
      name: "opencode: signed empty reasoning in the latest tool-use turn: the turn's message goes whole, with every part",
      records: opencode([stepStart, signed(" \n\t "), text("Checking."), tool("toolu_01CCCCCCCCCCCCCCCCCCCCCC"), stepFinish("tool-calls")]),
      findings: [{ messageId: "msg_0002", partId: "prt_2" }],
      changes: [
        { op: "delete", reasons: [`${EMPTY_REASON}${LATEST_TURN}`] },
        { op: "delete", reasons: [`${EMPTY_REASON}${LATEST_TURN}`] },
        { op: "delete", reasons: [`${EMPTY_REASON}${LATEST_TURN}`] },
        { op: "delete", reasons: [`${EMPTY_REASON}${LATEST_TURN}`] },
        { op: "delete", reasons: [`${EMPTY_REASON}${LATEST_TURN}`] },
        { op: "delete", reasons: [`${EMPTY_REASON}${LATEST_TURN}`] },
      ],
    },
    {
      name: "Claude Code: whitespace-only thinking in an earlier turn: just that line goes, the next line follows its parent",
      records: {
        dialect: "claude",
        lines: [
          claude.user("u1", null, "rename the config loader"),
          claude.assistant("a1", "u1", "msg_1", thinking("  \n ")),
          claude.assistant("a2", "a1", "msg_1", { type: "text", text: "Renamed it." }),
          claude.user("u2", "a2", "now run the tests", T3),
          claude.assistant("a3", "u2", "msg_2", { type: "text", text: "All green." }, T4),
        ],
      },
      findings: [{ messageId: "a1", partId: "a1#0", line: 2, severity: "error", message: EMPTY_MESSAGE }],
      output: file([
        claude.user("u1", null, "rename the config loader"),
        claude.assistant("a2", "u1", "msg_1", { type: "text", text: "Renamed it." }),
        claude.user("u2", "a2", "now run the tests", T3),
        claude.assistant("a3", "u2", "msg_2", { type: "text", text: "All green." }, T4),
      ]),
    },
    {
      name: "Claude Code: empty thinking in the latest tool-use turn: the response's lines and its tool_result go",
      records: {
        dialect: "claude",
        lines: [
          claude.user("u0", null, "what is pending?"),
          claude.assistant("a0", "u0", "msg_0", { type: "text", text: "Let me look." }),
          claude.user("u1", "a0", "check the migration status", T3),
          claude.assistant("a1", "u1", "msg_1", thinking(""), T4),
          claude.assistant("a2", "a1", "msg_1", call, T4),
          claude.result("r1", "a2", call.id, "1 migration pending", T4),
        ],
      },
      findings: [{ messageId: "a1", partId: "a1#0", line: 4 }],
      output: file([
        claude.user("u0", null, "what is pending?"),
        claude.assistant("a0", "u0", "msg_0", { type: "text", text: "Let me look." }),
        claude.user("u1", "a0", "check the migration status", T3),
      ]),
    },
    {
      name: "openclaw: whitespace-only thinking in an earlier turn: just that block goes, the rest of the line stays",
      records: {
        dialect: "openclaw",
        lines: [
          pi.header,
          pi.user("aaaa0001", null, "rename the config loader"),
          pi.assistant("aaaa0002", "aaaa0001", [piThinking("\n\n"), { type: "text", text: "Renamed it." }], "stop"),
          pi.user("aaaa0003", "aaaa0002", "now run the tests", T3),
          pi.assistant("aaaa0004", "aaaa0003", [{ type: "text", text: "All green." }], "stop", T4),
        ],
      },
      findings: [{ messageId: "aaaa0002", partId: "aaaa0002#0", line: 3, message: EMPTY_MESSAGE }],
      output: file([
        pi.header,
        pi.user("aaaa0001", null, "rename the config loader"),
        pi.assistant("aaaa0002", "aaaa0001", [{ type: "text", text: "Renamed it." }], "stop"),
        pi.user("aaaa0003", "aaaa0002", "now run the tests", T3),
        pi.assistant("aaaa0004", "aaaa0003", [{ type: "text", text: "All green." }], "stop", T4),
      ]),
    },
    {
      name: "openclaw: empty thinking in the latest tool-use turn: the response and its tool result go",
      records: {
        dialect: "openclaw",
        lines: [
          pi.header,
          pi.user("aaaa0001", null, "check the migration status"),
          pi.assistant("aaaa0002", "aaaa0001", [piThinking(""), piCall], "toolUse"),
          pi.result("aaaa0003", "aaaa0002", piCall.id, "1 migration pending"),
        ],
      },
      findings: [{ messageId: "aaaa0002", partId: "aaaa0002#0", line: 3 }],
      output: file([pi.header, pi.user("aaaa0001", null, "check the migration status")]),
    },
  ],
});

// ---------------------------------------------------------------------------------------------
// duplicate-thinking
// ---------------------------------------------------------------------------------------------

const REPEATED = "The user wants the migration status. Run `npx prisma migrate status` and report what is pending.";
const REPEAT_REASON = "removed a repeated copy of a thinking block (the first copy stays; the repeat is in the backup)";
const repeats = (first: string, same: "signature" | "text" = "signature") =>
  `thinking block repeats ${first} (the same ${same}) in the same message (the provider sees the message's thinking changed)`;

ruleTester(duplicateThinking, {
  valid: [
    {
      name: "opencode: two different reasoning parts in one message",
      records: opencode([
        stepStart,
        signed("Check the migrations."),
        text("Checking."),
        signed("One is pending.", SIG_B),
        text("One is pending."),
        stepFinish("stop"),
      ]),
    },
    {
      name: "opencode: the same reasoning in two different messages",
      records: opencode(
        [stepStart, signed(REPEATED), text("One is pending."), stepFinish("stop")],
        [stepStart, signed(REPEATED, SIG_B), text("Still one."), stepFinish("stop")],
      ),
    },
    {
      name: "Claude Code: the same thinking in two different responses",
      records: {
        dialect: "claude",
        lines: [
          claude.user("u1", null, "check the migration status"),
          claude.assistant("a1", "u1", "msg_1", thinking(REPEATED)),
          claude.assistant("a2", "a1", "msg_1", { type: "text", text: "One is pending." }),
          claude.user("u2", "a2", "check again", T3),
          claude.assistant("a3", "u2", "msg_2", thinking(REPEATED, SIG_B), T4),
          claude.assistant("a4", "a3", "msg_2", { type: "text", text: "Still one." }, T4),
        ],
      },
    },
    {
      name: "openclaw: two different thinking blocks in one message",
      records: {
        dialect: "openclaw",
        lines: [
          pi.header,
          pi.user("aaaa0001", null, "check the migration status"),
          pi.assistant(
            "aaaa0002",
            "aaaa0001",
            [piThinking("Check the migrations."), piThinking("One is pending.", SIG_B), { type: "text", text: "One." }],
            "stop",
          ),
        ],
      },
    },
  ],
  invalid: [
    {
      name: "opencode: a reasoning part stored twice in one message: the second copy goes",
      records: opencode([stepStart, signed(REPEATED), signed(REPEATED), text("One is pending."), stepFinish("stop")]),
      findings: [{ messageId: "msg_0002", partId: "prt_3", severity: "error", message: repeats("prt_2") }],
      changes: [{ op: "delete", reasons: [REPEAT_REASON] }],
    },
    {
      name: "Claude Code: a thinking line repeated in one response: the repeat goes, the next line follows the first copy",
      records: {
        dialect: "claude",
        lines: [
          claude.user("u1", null, "check the migration status"),
          claude.assistant("a1", "u1", "msg_1", thinking(REPEATED)),
          claude.assistant("a2", "a1", "msg_1", thinking(REPEATED)),
          claude.assistant("a3", "a2", "msg_1", { type: "text", text: "One is pending." }),
        ],
      },
      findings: [{ messageId: "a2", partId: "a2#0", line: 3, message: repeats("a1#0") }],
      output: file([
        claude.user("u1", null, "check the migration status"),
        claude.assistant("a1", "u1", "msg_1", thinking(REPEATED)),
        claude.assistant("a3", "a1", "msg_1", { type: "text", text: "One is pending." }),
      ]),
    },
    {
      name: "openclaw (#107221): one thinking block stored 50 times in the latest tool-use turn: the 49 repeats go, the first copy and the call stay",
      records: {
        dialect: "openclaw",
        lines: [
          pi.header,
          pi.user("aaaa0001", null, "check the migration status"),
          pi.assistant("aaaa0002", "aaaa0001", [...Array.from({ length: 50 }, () => piThinking(REPEATED)), piCall], "toolUse"),
          pi.result("aaaa0003", "aaaa0002", piCall.id, "1 migration pending"),
        ],
      },
      findings: Array.from({ length: 49 }, (_, i) => ({ messageId: "aaaa0002", partId: `aaaa0002#${i + 1}`, line: 3, message: repeats("aaaa0002#0") })),
      output: file([
        pi.header,
        pi.user("aaaa0001", null, "check the migration status"),
        pi.assistant("aaaa0002", "aaaa0001", [piThinking(REPEATED), piCall], "toolUse"),
        pi.result("aaaa0003", "aaaa0002", piCall.id, "1 migration pending"),
      ]),
    },
  ],
});

describe("duplicate-thinking: what counts as the same block", () => {
  // pi stores every redacted_thinking block as thinking "[Reasoning redacted]" with the encrypted data as its
  // signature, and opencode keeps redacted reasoning with empty text and the data in metadata: blocks are known by
  // their signature, so two distinct redacted blocks are never a repeat (dropping one would edit the thinking).
  it("openclaw: two different redacted_thinking blocks of one response share pi's placeholder text; neither is a repeat", () => {
    const assistant = pi.assistant("aaaa0002", "aaaa0001", [piRedacted(REDACTED_A), piRedacted(REDACTED_B), { type: "text", text: "One." }], "stop");
    expect(findingsOf(duplicateThinking, { dialect: "openclaw", lines: [pi.header, pi.user("aaaa0001", null, "status?"), assistant] })).toEqual([]);
  });

  it("opencode: two different redacted reasoning parts of one message (empty text, distinct data); neither is a repeat", () => {
    const records = opencode([
      stepStart,
      reasoning("", { anthropic: { redactedData: REDACTED_A } }),
      reasoning("", { anthropic: { redactedData: REDACTED_B } }),
      text("One is pending."),
      stepFinish("stop"),
    ]);
    expect(findingsOf(duplicateThinking, records)).toEqual([]);
  });

  // A transcript line is claimed whole by each fix (one fix per line per pass, at most 64 passes): the fix takes
  // every repeat of its line in one edit, so a block stored 80 times still settles.
  it("a repeat is judged within a message: a block repeated 80 times in one openclaw line is fixed in one plan", () => {
    const records = {
      dialect: "openclaw" as const,
      lines: [
        pi.header,
        pi.user("aaaa0001", null, "status?"),
        pi.assistant("aaaa0002", "aaaa0001", [...Array.from({ length: 80 }, () => piThinking(REPEATED)), { type: "text", text: "One." }], "stop"),
      ],
    };
    expect(findingsOf(duplicateThinking, records)).toHaveLength(79);
    const loaded = loadRecords(records);
    const plan = planSession(loaded, transcriptFixing, { ...DEFAULT_RULE_OPTIONS, now: Date.UTC(2030, 0, 1), rules: [duplicateThinking] });
    expect(plan.files?.[0]?.after?.toString("utf8")).toBe(
      file([
        pi.header,
        pi.user("aaaa0001", null, "status?"),
        pi.assistant("aaaa0002", "aaaa0001", [piThinking(REPEATED), { type: "text", text: "One." }], "stop"),
      ]),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// A scan (lean load) and a repair (full load) of opencode stores must see the same repeats
// ---------------------------------------------------------------------------------------------

/** A reasoning part of `chars` characters, stored twice in one reply (the same signature: a copy). */
function repeatedReasoning(chars: number) {
  const thought = "Per-line rounding drifts by up to half a cent per line; sum integer cents and round once. ".repeat(40).slice(0, chars);
  return storeOf(
    sessionOf((w) => {
      const first = w.reasoning(thought);
      const copy = { ...first, data: { ...(first.data as Record<string, unknown>) } };
      return [w.user("Why are totals off by a cent?"), w.assistant([w.stepStart(), first, copy, w.text("Per-line rounding."), w.stepFinish("stop")])];
    }),
  );
}

describe.each(FORMATS)("duplicate-thinking in a %s store, scanned as `session scan` scans it", (format) => {
  it("a short repeated reasoning part is reported by the lean and the full load alike", () => {
    const built = repeatedReasoning(600);
    const now = lastWrite(built) + HOUR;
    const lean = scan(format, built, { now }).filter((f) => f.rule === "duplicate-thinking");
    const full = scan(format, built, { now, mode: "full" }).filter((f) => f.rule === "duplicate-thinking");
    expect(lean).toHaveLength(1);
    expect(full.map((f) => f.partId)).toEqual(lean.map((f) => f.partId));
  });

  // A lean load empties every string over HEAVY_CHARS (1,024), so the view carries no `text` for long reasoning;
  // the signature survives it, and the rule knows a block by its signature, so the scan sees what the repair fixes.
  it("a repeated reasoning part over 1 KB is reported by the lean load too (what `session scan` uses)", () => {
    const built = repeatedReasoning(3_000);
    const now = lastWrite(built) + HOUR;
    const full = scan(format, built, { now, mode: "full" }).filter((f) => f.rule === "duplicate-thinking");
    expect(full).toHaveLength(1);
    const lean = scan(format, built, { now }).filter((f) => f.rule === "duplicate-thinking");
    expect(lean.map((f) => f.partId)).toEqual(full.map((f) => f.partId));
  });
});
