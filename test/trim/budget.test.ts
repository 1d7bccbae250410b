// The budget a size error states, and the layout every strategy reads (turns, steps, what stays intact), on a
// conversation built by hand: the cut is the same whatever store the conversation came from.
import { describe, expect, it } from "vitest";
import { byteBudgetOf, DEFAULT_MAX_BYTES } from "../../src/cli/trim-budget.js";
import type { Block, Conversation, ConversationMessage } from "../../src/model/conversation.js";
import { layoutOf } from "../../src/rules/trim/layout.js";

describe("the byte budget of a 413", () => {
  it("Claude Code's own 20 MB stop binds with the default's room; the API's texts keep the default", () => {
    expect(byteBudgetOf("Request too large (max 20MB)")).toBe(18_000_000);
    expect(byteBudgetOf('413 {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}')).toBe(DEFAULT_MAX_BYTES);
    expect(byteBudgetOf(undefined)).toBe(DEFAULT_MAX_BYTES);
    expect(byteBudgetOf("Request too large (max 64MB)")).toBe(DEFAULT_MAX_BYTES);
  });
});

const text = (id: string): Block => ({ type: "text", source: { kind: "part", id, messageId: `m-${id}` }, chars: 10, blank: false, text: "0123456789" });
const use = (id: string): Block => ({ type: "tool_use", source: { kind: "part", id, messageId: `m-${id}` }, chars: 10, id: `call-${id}`, name: "bash" });
const result = (id: string): Block => ({
  type: "tool_result",
  source: { kind: "part", id, messageId: `m-${id}` },
  chars: 10,
  toolUseId: `call-${id}`,
  isError: false,
  text: "0123456789",
});
const user = (...blocks: Block[]): ConversationMessage => ({ role: "user", blocks, sourceMessageIds: blocks.map((b) => b.source.messageId!) });
const assistant = (...blocks: Block[]): ConversationMessage => ({ role: "assistant", blocks, sourceMessageIds: blocks.map((b) => b.source.messageId!) });

describe("layoutOf", () => {
  // Turn 0: the task and an answer; turn 1: a prompt, then four tool steps (results merged with the next prompt's
  // message, as opencode's request merges same-role messages).
  const conversation: Conversation = {
    messages: [
      user(text("task")),
      assistant(text("a0")),
      user(text("ask")),
      assistant(use("s1")),
      user(result("s1")),
      assistant(use("s2")),
      user(result("s2")),
      assistant(use("s3")),
      user(result("s3")),
      assistant(use("s4")),
      user(result("s4")),
    ],
    skipped: [],
  };

  it("turns start at a prompt; a step is an assistant message with the results of its calls", () => {
    const layout = layoutOf(conversation, 1);
    expect(layout.turns.map((t) => t.steps.length)).toEqual([1, 4]);
    expect(layout.steps[1]!.blocks.map((b) => b.type)).toEqual(["tool_use", "tool_result"]);
    expect(layout.turns[1]!.messageIds).toEqual(["m-ask", "m-s1", "m-s2", "m-s3", "m-s4"]);
  });

  it("intact: the task, the last prompt and the last 2 steps with their results; kept: the last --keep-turns turns", () => {
    const layout = layoutOf(conversation, 1);
    expect([...layout.intact].sort()).toEqual(["ask", "s3", "s4", "task"]);
    expect([...layout.kept].sort()).toEqual(["ask", "s1", "s2", "s3", "s4"]);
    expect([...layoutOf(conversation, 0, 0).intact].sort()).toEqual(["ask", "task"]);
    expect(layoutOf(conversation, 0).kept.size).toBe(0);
  });

  it("a result merged with the next prompt belongs to its call's step, the prompt to a new turn", () => {
    const merged: Conversation = {
      messages: [user(text("task")), assistant(use("s1")), { ...user(result("s1"), text("next")) }, assistant(text("done"))],
      skipped: [],
    };
    const layout = layoutOf(merged, 1);
    expect(layout.turns.map((t) => t.prompt.map((b) => b.source.id))).toEqual([["task"], ["next"]]);
    expect(layout.steps[0]!.blocks.map((b) => b.source.id)).toEqual(["s1", "s1"]);
  });
});
