// leading-assistant through the RuleTester: an openclaw history that begins with an assistant turn (its prompt lost)
// loses that turn, tool result included, up to the next prompt; with no prompt after it, the finding stays (no fix).
import { expect } from "vitest";
import { leadingAssistant } from "../../src/rules/leading-assistant.js";
import { ruleTester } from "../support/rule-tester.js";

const T0 = "2026-04-06T14:00:00.000Z";
const T1 = "2026-04-06T14:00:05.000Z";

const header = { type: "session", version: 3, id: "s1", timestamp: T0, cwd: "/w" };
const user = (id: string, parentId: string | null, content: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: T0,
  message: { role: "user", content, timestamp: Date.parse(T0) },
});
const assistant = (id: string, parentId: string | null, content: unknown[], stopReason = "stop") => ({
  type: "message",
  id,
  parentId,
  timestamp: T1,
  message: { role: "assistant", content, provider: "anthropic", model: "claude-sonnet-4-5", stopReason, timestamp: Date.parse(T1) },
});
const result = (id: string, parentId: string, toolCallId: string) => ({
  type: "message",
  id,
  parentId,
  timestamp: T1,
  message: { role: "toolResult", toolCallId, toolName: "exec", content: [{ type: "text", text: "95%" }], isError: false, timestamp: Date.parse(T1) },
});
const call = { type: "toolCall", id: "call_1", name: "exec", arguments: { command: "df -h" } };
const line = (v: unknown) => JSON.stringify(v);

const answer = assistant("aaaa0002", null, [call], "toolUse");
const toolResult = result("aaaa0003", "aaaa0002", "call_1");
const reply = assistant("aaaa0004", "aaaa0003", [{ type: "text", text: "95% full." }]);
const next = user("aaaa0005", "aaaa0004", "Prune the old images.");
const last = assistant("aaaa0006", "aaaa0005", [{ type: "text", text: "Pruned." }]);

ruleTester(leadingAssistant, {
  valid: [
    {
      name: "a history that begins with the user's prompt",
      records: { dialect: "openclaw", lines: [header, user("aaaa0001", null, "How full is the NAS?"), { ...answer, parentId: "aaaa0001" }, toolResult, reply] },
    },
  ],
  invalid: [
    {
      name: "the first prompt is gone: the turn that answered it goes, up to the next prompt, which becomes the root",
      records: { dialect: "openclaw", lines: [header, answer, toolResult, reply, next, last] },
      findings: [{ messageId: "aaaa0002", line: 2, severity: "error" }],
      output: `${[header, { ...next, parentId: null }, last].map(line).join("\n")}\n`,
    },
    {
      name: "no prompt follows the turn: it is the whole conversation, so nothing is removed and the finding stays",
      records: { dialect: "openclaw", lines: [header, answer, toolResult, reply] },
      findings: [{ messageId: "aaaa0002", message: expect.stringContaining("no prompt of the user follows") }],
    },
  ],
});
