// The Anthropic validator: each rule of the Messages API, on hand-built requests and on real sessions, reported with
// the exact text the API answers (reference formats-and-errors.md §1.1–1.3), its position and the blocks behind it.
// Each text is also fed back to the classifier, which must read the same kind, position and ids out of it.
import { describe, expect, it } from "vitest";
import { classifyProviderError } from "../../src/provider/classify-error.js";
import { thinkingMode, validateAnthropic, type Violation } from "../../src/provider/validate-anthropic.js";
import { healthySession, SECOND } from "../support/opencode-fixtures.js";
import { FORMATS, sessionOf, START, storeOf, TOTALS_TS, unsignedReasoning } from "../rules/harness.js";
import { image, partsOf, redacted, request, sentFor, shapeOf, text, thinking, toolResult, toolUse } from "./request-support.js";

const A = "toolu_01HqfLWiAKQLsniF2fBGF2KD";
const B = "toolu_01SJzDkeAZER935cpGFptTNk";
const C = "toolu_015cqXRmSf7tsfMgJ9ibV1z3";

const THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/** What a test compares: kind, position, text, the block sources and stored messages. */
function summary(v: Violation) {
  return { kind: v.kind, index: v.index, contentIndex: v.contentIndex, text: v.text, blocks: v.blocks.map((b) => b.source.id), messageIds: v.messageIds };
}

/** The classifier reads the violation's own text back as the same kind (and, where the text has them, position and ids). */
function expectClassifiedAlike(v: Violation, ids: string[] = []): void {
  const c = classifyProviderError(v.text);
  expect(c.kind, v.text).toBe(v.kind);
  if (/^messages\.\d/.test(v.text)) {
    expect(c.index).toBe(v.index);
    expect(c.contentIndex).toBe(v.contentIndex);
  }
  expect(c.ids).toEqual(ids);
}

describe("validateAnthropic on hand-built requests", () => {
  it("a valid tool loop with thinking has no violation, thinking on or off (thinking only in non-final messages)", () => {
    const r = request(
      ["user", [text("Find the rounding bug.")]],
      ["assistant", [thinking(), text("Reading."), toolUse(A), toolUse(B)]],
      ["user", [toolResult(A), toolResult(B), text("Also check tax.")]],
      ["assistant", [text("Both are fine.")]],
    );
    expect(validateAnthropic(r, "on")).toEqual([]);
    expect(validateAnthropic(r, "off")).toEqual([]);
    expect(validateAnthropic(r, "on", { midToolLoop: true })).toEqual([]);
  });

  it("orphan_tool_use: tool_use ids without results in the next message, comma-separated, at the assistant message", () => {
    const a = toolUse(A, "prt_use_a");
    const b = toolUse(B, "prt_use_b");
    const r = request(
      ["user", [text("Run it.")]],
      ["assistant", [thinking(), text("x")]],
      ["user", [text("And the tests?")]],
      ["assistant", [thinking(), text("Running both."), a, b]],
      ["user", [text("Did it work?")]],
    );
    const found = validateAnthropic(r, "on");
    expect(found.map(summary)).toEqual([
      {
        kind: "orphan_tool_use",
        index: 3,
        contentIndex: null,
        text: `messages.3: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${A}, ${B}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        blocks: ["prt_use_a", "prt_use_b"],
        messageIds: ["msg_3"],
      },
    ]);
    expectClassifiedAlike(found[0]!, [A, B]);
  });

  it("orphan_tool_use names only the calls left unanswered", () => {
    const r = request(["user", [text("Run it.")]], ["assistant", [toolUse(A), toolUse(B, "prt_b")]], ["user", [toolResult(A)]]);
    const found = validateAnthropic(r, "off");
    expect(found.map(summary)).toEqual([
      {
        kind: "orphan_tool_use",
        index: 1,
        contentIndex: null,
        text: `messages.1: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${B}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        blocks: ["prt_b"],
        messageIds: ["msg_1"],
      },
    ]);
  });

  it("orphan_tool_result: a result with no call in the previous message, at its own position (also at messages.0)", () => {
    const r = request(["user", [text("Go.")]], ["assistant", [toolUse(A)]], ["user", [toolResult(A), toolResult(C, "prt_stray")]]);
    const found = validateAnthropic(r, "off");
    expect(found.map(summary)).toEqual([
      {
        kind: "orphan_tool_result",
        index: 2,
        contentIndex: 1,
        text: `messages.2.content.1: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${C}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        blocks: ["prt_stray"],
        messageIds: ["msg_2"],
      },
    ]);
    expectClassifiedAlike(found[0]!, [C]);

    // History cut after a call: the request starts with its result (the reference's messages.0 example).
    const truncated = request(["user", [toolResult(C, "prt_first")]], ["assistant", [text("ok")]]);
    expect(validateAnthropic(truncated, "off").map((v) => v.text)).toEqual([
      `messages.0.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${C}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
    ]);
  });

  it("orphan_tool_result: a result after an assistant message without calls", () => {
    const r = request(["user", [text("Go.")]], ["assistant", [text("Done.")]], ["user", [toolResult(A, "prt_r")]]);
    expect(validateAnthropic(r, "off").map(summary)).toEqual([
      {
        kind: "orphan_tool_result",
        index: 2,
        contentIndex: 0,
        text: `messages.2.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${A}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        blocks: ["prt_r"],
        messageIds: ["msg_2"],
      },
    ]);
  });

  it("tool_result_not_first: results must open the message that follows the calls", () => {
    const r = request(["user", [text("Go.")]], ["assistant", [toolUse(A)]], ["user", [text("also this", "prt_lead"), toolResult(A)]]);
    const found = validateAnthropic(r, "off");
    expect(found.map(summary)).toEqual([
      {
        kind: "tool_result_not_first",
        index: 2,
        contentIndex: null,
        text: "messages.2: Did not find 1 tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.",
        blocks: ["prt_lead"],
        messageIds: ["msg_2"],
      },
    ]);
    expectClassifiedAlike(found[0]!);

    const two = request(["user", [text("Go.")]], ["assistant", [toolUse(A), toolUse(B)]], ["user", [toolResult(A), text("note"), toolResult(B)]]);
    expect(validateAnthropic(two, "off").map((v) => v.text)).toEqual([
      "messages.2: Did not find 2 tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.",
    ]);
  });

  it("duplicate_tool_id: the second use of an id, at its block", () => {
    const r = request(
      ["user", [text("Go.")]],
      ["assistant", [toolUse(A)]],
      ["user", [toolResult(A)]],
      ["assistant", [text("Again."), toolUse(A, "prt_dup")]],
      ["user", [toolResult(A)]],
    );
    const found = validateAnthropic(r, "off");
    expect(found.map(summary)).toEqual([
      {
        kind: "duplicate_tool_id",
        index: 3,
        contentIndex: 1,
        text: "messages.3.content.1: `tool_use` ids must be unique",
        blocks: ["prt_dup"],
        messageIds: ["msg_3"],
      },
    ]);
    expectClassifiedAlike(found[0]!);
  });

  it("empty text: empty and whitespace-only text blocks, each with the API's own wording", () => {
    const r = request(["user", [text("Go.")]], ["assistant", [text("", "prt_empty"), text("ok")]], ["user", [text(" \n\t", "prt_ws")]]);
    const found = validateAnthropic(r, "off");
    expect(found.map(summary)).toEqual([
      {
        kind: "empty_content",
        index: 1,
        contentIndex: 0,
        text: "messages: text content blocks must be non-empty",
        blocks: ["prt_empty"],
        messageIds: ["msg_1"],
      },
      {
        kind: "empty_content",
        index: 2,
        contentIndex: 0,
        text: "text content blocks must contain non-whitespace text",
        blocks: ["prt_ws"],
        messageIds: ["msg_2"],
      },
    ]);
    for (const v of found) expect(classifyProviderError(v.text).kind).toBe("empty_content");
  });

  it("empty message: any message but an optional final assistant one must have content", () => {
    const middle = request(["user", [text("Go.")]], ["assistant", []], ["user", [text("Hello?")]]);
    const found = validateAnthropic(middle, "off");
    expect(found.map(summary)).toEqual([
      {
        kind: "empty_content",
        index: 1,
        contentIndex: null,
        text: "messages.1: all messages must have non-empty content except for the optional final assistant message",
        blocks: [],
        messageIds: ["msg_1"],
      },
    ]);
    expectClassifiedAlike(found[0]!);
    expect(validateAnthropic(request(["user", [text("Go.")]], ["assistant", []]), "off")).toEqual([]);
    expect(validateAnthropic(request(["user", [text("Go.")]], ["assistant", [text("ok")]], ["user", []]), "off").map((v) => v.text)).toEqual([
      "messages.2: all messages must have non-empty content except for the optional final assistant message",
    ]);
  });

  it("first_not_user: the request must open with a user message", () => {
    const r = request(["assistant", [text("Continuing.", "prt_a")]], ["user", [text("Thanks.")]]);
    const found = validateAnthropic(r, "off");
    expect(found.map(summary)).toEqual([
      {
        kind: "first_not_user",
        index: 0,
        contentIndex: null,
        text: 'messages: first message must use the "user" role',
        blocks: ["prt_a"],
        messageIds: ["msg_0"],
      },
    ]);
    expectClassifiedAlike(found[0]!);
  });

  it("roles_not_alternating, when asked (Bedrock Converse): two messages of one role in a row, either role", () => {
    const users = request(["user", [text("Go.")]], ["user", [text("Now.", "prt_u")]], ["assistant", [text("ok")]]);
    // The Messages API combines turns of one role (Claude Code sends two user messages for an @file prompt).
    expect(validateAnthropic(users, "off")).toEqual([]);
    expect(validateAnthropic(users, "off", { alternation: true }).map(summary)).toEqual([
      {
        kind: "roles_not_alternating",
        index: 1,
        contentIndex: null,
        text: 'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
        blocks: ["prt_u"],
        messageIds: ["msg_1"],
      },
    ]);
    const assistants = request(["user", [text("Go.")]], ["assistant", [text("a")]], ["assistant", [text("b")]]);
    expect(validateAnthropic(assistants, "off", { alternation: true }).map((v) => v.text)).toEqual([
      'messages: roles must alternate between "user" and "assistant", but found multiple "assistant" roles in a row',
    ]);
  });

  it("thinking_order: thinking present but not first names the first block's type and every misplaced thinking block", () => {
    const r = request(
      ["user", [text("Go.")]],
      ["assistant", [text("Let me look.", "prt_t"), thinking("prt_k1"), toolUse(A), redacted("prt_k2"), text("Done.")]],
      ["user", [toolResult(A)]],
    );
    const found = validateAnthropic(r, "on");
    expect(found.map(summary)).toEqual([
      {
        kind: "thinking_order",
        index: 1,
        contentIndex: 0,
        text: "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text.",
        blocks: ["prt_k1", "prt_k2"],
        messageIds: ["msg_1"],
      },
    ]);
    expectClassifiedAlike(found[0]!);
    const afterTool = request(["user", [text("Go.")]], ["assistant", [toolUse(A), thinking(), text("x")]], ["user", [toolResult(A)]]);
    expect(validateAnthropic(afterTool, "on").map((v) => v.text)).toEqual([
      "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found tool_use.",
    ]);
  });

  it("trailing_thinking: an assistant message may not end on (redacted) thinking, in any position", () => {
    const r = request(
      ["user", [text("Go.")]],
      ["assistant", [thinking(), text("x"), thinking("prt_tail")]],
      ["user", [text("More.")]],
      ["assistant", [redacted("prt_r")]],
    );
    const found = validateAnthropic(r, "on");
    expect(found.map(summary)).toEqual([
      {
        kind: "trailing_thinking",
        index: 1,
        contentIndex: null,
        text: "messages.1: The final block in an assistant message cannot be `thinking`.",
        blocks: ["prt_tail"],
        messageIds: ["msg_1"],
      },
      {
        kind: "trailing_thinking",
        index: 3,
        contentIndex: null,
        text: "messages.3: The final block in an assistant message cannot be `thinking`.",
        blocks: ["prt_r"],
        messageIds: ["msg_3"],
      },
    ]);
    expectClassifiedAlike(found[0]!);
  });

  it("thinking_when_disabled: only the assistant message in the final position, at its first thinking block", () => {
    const r = request(
      ["user", [text("Go.")]],
      ["assistant", [thinking("prt_early"), text("x")]],
      ["user", [text("More.")]],
      ["assistant", [thinking("prt_k1"), text("y"), redacted("prt_k2"), text("z")]],
    );
    const found = validateAnthropic(r, "off");
    expect(found.map(summary)).toEqual([
      {
        kind: "thinking_when_disabled",
        index: 3,
        contentIndex: 0,
        text: "messages.3.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
        blocks: ["prt_k1", "prt_k2"],
        messageIds: ["msg_3"],
      },
    ]);
    expectClassifiedAlike(found[0]!);
    expect(validateAnthropic(r, "on").filter((v) => v.kind === "thinking_when_disabled")).toEqual([]);
    // A request ending on a user message has no final assistant message: nothing to say, thinking off or not.
    const endsWithUser = request(["user", [text("Go.")]], ["assistant", [thinking(), text("x")]], ["user", [text("More.")]]);
    expect(validateAnthropic(endsWithUser, "off")).toEqual([]);
    // The index of the first thinking block, wherever it is.
    const later = request(["user", [text("Go.")]], ["assistant", [text("x"), text("y"), thinking("prt_third"), text("z")]]);
    expect(validateAnthropic(later, "off").map((v) => [v.kind, v.text])).toEqual([
      [
        "thinking_order",
        "messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found text.",
      ],
      [
        "thinking_when_disabled",
        "messages.1.content.2: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
      ],
    ]);
  });

  describe("midToolLoop: the final tool-use turn must open with thinking while thinking is on", () => {
    const loop = (first: ReturnType<typeof text>) =>
      request(
        ["user", [text("Fix it.")]],
        ["assistant", [thinking(), text("Reading."), toolUse(A)]],
        ["user", [toolResult(A)]],
        ["assistant", [first, toolUse(B)]],
        ["user", [toolResult(B)]],
      );

    it("on, with the option: the API's final-turn text, at messages.N.content.0", () => {
      const found = validateAnthropic(loop(text("Now editing.", "prt_first")), "on", { midToolLoop: true });
      expect(found.map(summary)).toEqual([
        {
          kind: "thinking_order",
          index: 3,
          contentIndex: 0,
          text: `messages.3.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`text\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`,
          blocks: ["prt_first"],
          messageIds: ["msg_3"],
        },
      ]);
      expectClassifiedAlike(found[0]!);
      const toolFirst = request(["user", [text("Fix it.")]], ["assistant", [toolUse(B, "prt_tool")]], ["user", [toolResult(B)]]);
      expect(validateAnthropic(toolFirst, "on", { midToolLoop: true }).map((v) => v.text)).toEqual([
        `messages.1.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`,
      ]);
    });

    it("off, or without the option, or when the turn opens with (redacted) thinking, or when the request does not end in results: nothing", () => {
      expect(validateAnthropic(loop(text("Now editing.")), "off", { midToolLoop: true })).toEqual([]);
      expect(validateAnthropic(loop(text("Now editing.")), "on")).toEqual([]);
      expect(validateAnthropic(loop(text("Now editing.")), "on", { midToolLoop: false })).toEqual([]);
      expect(validateAnthropic(loop(thinking()), "on", { midToolLoop: true }).filter((v) => v.text.includes("Expected"))).toEqual([]);
      expect(validateAnthropic(loop(redacted()), "on", { midToolLoop: true }).filter((v) => v.text.includes("Expected"))).toEqual([]);
      const userText = request(["user", [text("Fix it.")]], ["assistant", [text("Reading."), toolUse(A)]], ["user", [toolResult(A), text("and?")]]);
      expect(validateAnthropic(userText, "on", { midToolLoop: true })).toEqual([]);
      const endsAssistant = request(["user", [text("Fix it.")]], ["assistant", [text("Done.")]]);
      expect(validateAnthropic(endsAssistant, "on", { midToolLoop: true })).toEqual([]);
    });

    it("adaptive (the prefix-checking models): no leading-thinking rule; thinkingMode tells it by the newest thinking's model", () => {
      expect(validateAnthropic(loop(text("Now editing.")), "adaptive", { midToolLoop: true })).toEqual([]);
      const withModel = (model: string) => {
        const r = loop(text("Now editing."));
        r.messages[1]!.content[0]!.model = model;
        return r;
      };
      expect(thinkingMode(withModel("claude-sonnet-5-5-20261015"), "auto")).toBe("adaptive");
      expect(thinkingMode(withModel("us.anthropic.claude-fable-5-2-v1:0"), "auto")).toBe("adaptive");
      expect(thinkingMode(withModel("claude-sonnet-4-5"), "auto")).toBe("on");
      expect(thinkingMode(request(["user", [text("Fix it.")]], ["assistant", [text("Done.")]]), "auto")).toBe("off");
    });
  });

  it("several violations are all reported, in request order", () => {
    const r = request(["assistant", [text("hi")]], ["user", [text("")]], ["user", [image()]], ["assistant", [toolUse(A)]], ["user", [text("?")]]);
    expect(validateAnthropic(r, "off", { alternation: true }).map((v) => `${v.kind}@${v.index}`)).toEqual([
      "first_not_user@0",
      "empty_content@1",
      "roles_not_alternating@2",
      "orphan_tool_use@3",
    ]);
  });
});

describe("thinkingMode", () => {
  it("auto is on exactly when an assistant message carries (redacted) thinking; on and off are taken as given", () => {
    const withThinking = request(["user", [text("Go.")]], ["assistant", [thinking(), text("x")]]);
    const withRedacted = request(["user", [text("Go.")]], ["assistant", [redacted(), text("x")]]);
    const without = request(["user", [text("Go.")]], ["assistant", [text("x"), toolUse(A)]], ["user", [toolResult(A)]]);
    expect(thinkingMode(withThinking, "auto")).toBe("on");
    expect(thinkingMode(withRedacted, "auto")).toBe("on");
    expect(thinkingMode(without, "auto")).toBe("off");
    expect(thinkingMode({ messages: [] }, "auto")).toBe("off");
    expect(thinkingMode(withThinking, "off")).toBe("off");
    expect(thinkingMode(without, "on")).toBe("on");
  });
});

// ---------------------------------------------------------------------------------------------
describe.each(FORMATS)("validateAnthropic on real sessions (%s store)", (format) => {
  it("opencode's healthy six-turn session: nothing, thinking auto (on)", () => {
    const built = storeOf(healthySession({ start: START, turns: 6 }));
    const { request: r } = sentFor(format, built);
    expect(thinkingMode(r, "auto")).toBe("on");
    expect(validateAnthropic(r, thinkingMode(r, "auto"))).toEqual([]);
  });

  it("the same session with thinking off: only its final assistant message is reported, at its reasoning", () => {
    const built = storeOf(healthySession({ start: START, turns: 2 }));
    const { request: r } = sentFor(format, built);
    const last = r.messages.length - 1;
    expect(shapeOf(r)[last]).toBe("assistant:[thinking,text]");
    const reasoning = built.sessions[0]!.messages.at(-1)!.parts.find((p) => p.data?.type === "reasoning")!;
    expect(validateAnthropic(r, "off").map((v) => [v.kind, v.text, v.blocks.map((b) => b.source.id)])).toEqual([
      [
        "thinking_when_disabled",
        `messages.${last}.content.0: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
        [reasoning.id],
      ],
    ]);
  });

  /** A session whose last turn ran a tool and stopped there (the request ends in its result), that turn's reasoning `signed` or not. */
  const stoppedAfterTool = (signed: boolean) =>
    storeOf(
      sessionOf((w) => [
        w.user("Now check the tax module."),
        w.assistant([
          w.stepStart(),
          signed ? w.reasoning("Read the tax module.") : unsignedReasoning(w, "Read the tax module."),
          w.text("Reading the tax module."),
          w.read("src/invoices/tax.ts", TOTALS_TS),
          w.stepFinish("tool-calls"),
        ]),
      ]),
    );

  it("mid tool loop with the final turn's thinking unsigned (not sent): the final-turn rule, only with the option", () => {
    const built = stoppedAfterTool(false);
    const { request: r } = sentFor(format, built);
    expect(shapeOf(r).slice(-2)).toEqual(["assistant:[text,tool_use]", "user:[tool_result]"]);
    const n = r.messages.length - 2;
    const textPart = partsOf(built, 3).find((p) => p.data?.type === "text")!;
    expect(thinkingMode(r, "auto")).toBe("on");
    expect(validateAnthropic(r, "on")).toEqual([]);
    expect(validateAnthropic(r, "on", { midToolLoop: true }).map((v) => [v.kind, v.index, v.contentIndex, v.text, v.blocks.map((b) => b.source.id)])).toEqual([
      [
        "thinking_order",
        n,
        0,
        `messages.${n}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`text\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`,
        [textPart.id],
      ],
    ]);
    expect(validateAnthropic(r, "off", { midToolLoop: true })).toEqual([]);
  });

  it("mid tool loop with the final turn's thinking signed: nothing", () => {
    const { request: r } = sentFor(format, stoppedAfterTool(true));
    expect(validateAnthropic(r, "on", { midToolLoop: true })).toEqual([]);
  });

  it("a real first_not_user: the first prompt's record is gone, the request opens on an assistant message", () => {
    const built = storeOf(
      sessionOf(
        (w) => [
          w.assistant([w.stepStart(), w.reasoning("Continue the refactor."), w.text("Continuing the refactor."), w.stepFinish("stop")], {
            parentID: "msg_0f6b12e50001g9BHONa7bZPqnX",
          }),
          w.user("Thanks, now run the tests.", { gap: 2 * SECOND }),
          w.assistant([w.stepStart(), w.text("All green."), w.stepFinish("stop")]),
        ],
        { opening: false },
      ),
    );
    const { request: r } = sentFor(format, built);
    expect(validateAnthropic(r, thinkingMode(r, "auto")).map((v) => [v.kind, v.text, v.blocks.map((b) => b.source.id)])).toEqual([
      ["first_not_user", 'messages: first message must use the "user" role', [partsOf(built, 0)[1]!.id]],
    ]);
  });
});
