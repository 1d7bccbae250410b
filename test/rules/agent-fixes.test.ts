// The rules whose fix depends on what the agent itself writes (its interrupted result, its blank prompt, its
// placeholder), on in-memory records of each store family, through the RuleTester: the rule names no store, the
// store's fix context supplies the agent's own way.
import { emptyMessage } from "../../src/rules/empty-message.js";
import { emptyTextPart } from "../../src/rules/empty-text-part.js";
import { incompleteMessage } from "../../src/rules/incomplete-message.js";
import { toolResultMissing } from "../../src/rules/tool-result-missing.js";
import { ruleTester } from "../support/rule-tester.js";

const T0 = "2026-04-06T14:00:00.000Z";
const T1 = "2026-04-06T14:00:05.000Z";
const T2 = "2026-04-06T14:05:00.000Z";
const MS0 = Date.parse(T0);

/** Claude Code lines, one record each, linked by uuid. */
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
  assistant: (uuid: string, parentUuid: string, id: string, content: unknown[], timestamp = T1) => ({
    parentUuid,
    isSidechain: false,
    type: "assistant",
    message: { id, role: "assistant", model: "claude-sonnet-4-5", content },
    uuid,
    timestamp,
    sessionId: "s1",
    cwd: "/w",
  }),
};

/** openclaw (pi) entries: a header, then messages linked by id. */
const pi = {
  header: { type: "session", version: 3, id: "s1", timestamp: T0, cwd: "/w" },
  user: (id: string, parentId: string | null, content: unknown, timestamp = T0) => ({
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "user", content, timestamp: Date.parse(timestamp) },
  }),
  assistant: (id: string, parentId: string, content: unknown[], stopReason: string, timestamp = T1) => ({
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "assistant", content, provider: "anthropic", model: "claude-sonnet-4-5", stopReason, timestamp: Date.parse(timestamp) },
  }),
};

const line = (v: unknown) => JSON.stringify(v);
const call = { type: "tool_use", id: "toolu_01AAAAAAAAAAAAAAAAAAAAAA", name: "Bash", input: { command: "ls" } };
const piCall = { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls" } };

ruleTester(toolResultMissing, {
  valid: [
    {
      name: "Claude Code: the call has its result",
      records: {
        dialect: "claude",
        lines: [
          claude.user("u1", null, "list the files"),
          claude.assistant("a1", "u1", "msg_1", [call]),
          claude.user("u2", "a1", [{ type: "tool_result", tool_use_id: call.id, content: "a.ts" }], T1),
        ],
      },
    },
  ],
  invalid: [
    {
      name: "Claude Code: the interrupted call gets the result Claude Code writes, and the next prompt follows it",
      records: {
        dialect: "claude",
        lines: [claude.user("u1", null, "list the files"), claude.assistant("a1", "u1", "msg_1", [call]), claude.user("u2", "a1", "stop", T2)],
      },
      findings: [{ messageId: "a1", partId: "a1#0", line: 2 }],
      output: new RegExp(
        `^${esc(line(claude.user("u1", null, "list the files")))}\\n${esc(line(claude.assistant("a1", "u1", "msg_1", [call])))}\\n` +
          `\\{"parentUuid":"a1","isSidechain":false,"cwd":"/w","sessionId":"s1","type":"user","message":\\{"role":"user","content":\\[\\{"type":"tool_result","content":"\\[Request interrupted by user for tool use\\]","is_error":true,"tool_use_id":"${call.id}"\\}\\]\\},"uuid":"(?<id>[0-9a-f-]{36})","timestamp":"${T1}","toolUseResult":"Error: \\[Request interrupted by user for tool use\\]","sourceToolAssistantUUID":"a1"\\}\\n` +
          `${esc(line(claude.user("u2", "a1", "stop", T2))).replace('"parentUuid":"a1"', '"parentUuid":"\\k<id>"')}\\n$`,
      ),
    },
    {
      name: "openclaw: the interrupted call gets openclaw's synthetic error result",
      records: {
        dialect: "openclaw",
        lines: [pi.header, pi.user("aaaa0001", null, "list the files"), pi.assistant("aaaa0002", "aaaa0001", [piCall], "toolUse")],
      },
      findings: [{ messageId: "aaaa0002", partId: "aaaa0002#0", line: 3 }],
      output: new RegExp(
        `^${esc([pi.header, pi.user("aaaa0001", null, "list the files"), pi.assistant("aaaa0002", "aaaa0001", [piCall], "toolUse")].map(line).join("\n"))}\\n` +
          `\\{"type":"message","id":"[0-9a-f]{8}","parentId":"aaaa0002","timestamp":"${T1}","message":\\{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":\\[\\{"type":"text","text":"\\[openclaw\\] missing tool result in session history; inserted synthetic error result for transcript repair\\."\\}\\],"isError":true,"timestamp":${Date.parse(T1)}\\}\\}\\n$`,
      ),
    },
    {
      name: "openclaw: a call of an aborted turn may be half-streamed, so it is dropped as openclaw drops it",
      records: {
        dialect: "openclaw",
        lines: [
          pi.header,
          pi.user("aaaa0001", null, "list the files"),
          pi.assistant("aaaa0002", "aaaa0001", [{ type: "text", text: "Listing." }, piCall], "aborted"),
        ],
      },
      findings: [{ partId: "aaaa0002#1" }],
      output: `${[pi.header, pi.user("aaaa0001", null, "list the files"), pi.assistant("aaaa0002", "aaaa0001", [{ type: "text", text: "Listing." }], "aborted")].map(line).join("\n")}\n`,
    },
  ],
});

ruleTester(emptyTextPart, {
  valid: [{ name: "openclaw: a prompt with text", records: { dialect: "openclaw", lines: [pi.header, pi.user("aaaa0001", null, "hello")] } }],
  invalid: [
    {
      name: "openclaw: a blank prompt becomes openclaw's own (continue)",
      records: { dialect: "openclaw", lines: [pi.header, pi.user("aaaa0001", null, "   ")] },
      findings: [{ messageId: "aaaa0001", line: 2 }],
      output: `${[pi.header, pi.user("aaaa0001", null, "(continue)")].map(line).join("\n")}\n`,
    },
    {
      name: "Claude Code: a prompt of nothing but empty text goes, and the reply follows its parent",
      records: {
        dialect: "claude",
        lines: [
          claude.user("u1", null, "hi"),
          claude.user("u2", "u1", [{ type: "text", text: "" }], T1),
          claude.assistant("a1", "u2", "msg_1", [{ type: "text", text: "Hello." }], T2),
        ],
      },
      findings: [{ messageId: "u2", partId: "u2#0" }],
      output: `${[claude.user("u1", null, "hi"), claude.assistant("a1", "u1", "msg_1", [{ type: "text", text: "Hello." }], T2)].map(line).join("\n")}\n`,
    },
    {
      name: "opencode: a blank text that is all the message says becomes opencode's placeholder",
      records: {
        messages: [
          {
            id: "msg_0001",
            info: { role: "user", time: { created: MS0 }, agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" } },
            // Whitespace: opencode 1.18 drops a "" user text (and the message with it), but sends whitespace.
            parts: [{ id: "prt_0001", data: { type: "text", text: " \n " } }],
          },
        ],
      },
      findings: [{ messageId: "msg_0001", partId: "prt_0001" }],
      changes: [
        {
          op: "update",
          after: { type: "text", text: "[user interrupted]", synthetic: true },
          reasons: ["the message has nothing else to say: the empty text becomes opencode's placeholder"],
        },
      ],
    },
  ],
});

const assistantInfo = (created: number, extra: Record<string, unknown> = {}) => ({
  role: "assistant",
  time: { created },
  parentID: "msg_0001",
  modelID: "claude-sonnet-4-5",
  providerID: "anthropic",
  mode: "build",
  agent: "build",
  path: { cwd: "/w", root: "/w" },
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  ...extra,
});
const userInfo = { role: "user", time: { created: MS0 }, agent: "build", model: { providerID: "anthropic", modelID: "claude-sonnet-4-5" } };

ruleTester(incompleteMessage, {
  valid: [
    {
      name: "opencode: a finished turn",
      records: {
        messages: [
          { id: "msg_0001", info: userInfo, parts: [{ id: "prt_0001", data: { type: "text", text: "hi" } }] },
          {
            id: "msg_0002",
            info: assistantInfo(MS0 + 1000, { time: { created: MS0 + 1000, completed: MS0 + 2000 } }),
            parts: [{ id: "prt_0002", data: { type: "text", text: "Hello." } }],
          },
        ],
      },
    },
  ],
  invalid: [
    {
      name: "opencode: an unfinished turn is completed as aborted, as opencode does on cancel",
      records: {
        messages: [
          { id: "msg_0001", info: userInfo, parts: [{ id: "prt_0001", data: { type: "text", text: "hi" } }] },
          { id: "msg_0002", info: assistantInfo(MS0 + 1000), parts: [{ id: "prt_0002", data: { type: "text", text: "Hel" } }] },
        ],
      },
      options: { now: Date.UTC(2030, 0, 1) },
      findings: [{ messageId: "msg_0002" }],
      changes: [
        {
          op: "update",
          after: assistantInfo(MS0 + 1000, {
            time: { created: MS0 + 1000, completed: Date.UTC(2030, 0, 1) },
            error: { name: "MessageAbortedError", data: { message: "The agent stopped before this turn finished (closed by recover)" } },
          }),
        },
      ],
    },
  ],
});

ruleTester(emptyMessage, {
  valid: [
    {
      name: "opencode: a user message with text",
      records: { messages: [{ id: "msg_0001", info: userInfo, parts: [{ id: "prt_0001", data: { type: "text", text: "hi" } }] }] },
    },
  ],
  invalid: [
    {
      name: "opencode: a finished reply of step markers only gets opencode's placeholder text",
      records: {
        messages: [
          { id: "msg_0001", info: userInfo, parts: [{ id: "prt_0001", data: { type: "text", text: "hi" } }] },
          {
            id: "msg_0002",
            info: assistantInfo(MS0 + 1000, { time: { created: MS0 + 1000, completed: MS0 + 2000 } }),
            parts: [{ id: "prt_0002", data: { type: "step-start" } }],
          },
        ],
      },
      findings: [{ messageId: "msg_0002" }],
      changes: [
        { op: "insert", after: { type: "text", text: "[user interrupted]", synthetic: true }, reasons: ["gave the empty message opencode's placeholder text"] },
      ],
    },
  ],
});

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
