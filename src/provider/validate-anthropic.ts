/**
 * Check a request against the Anthropic Messages API's own rules and report each violation with the exact text the
 * API answers (reference formats-and-errors.md §1.1–1.3), its position, and the records behind it.
 */
import { carried } from "../model/carried.js";
import { isPrefixBound } from "./prefix-bound.js";
import type { ProviderErrorKind } from "./classify-error.js";
import type { AnthropicRequest, RequestBlock } from "./anthropic-request.js";

export interface Violation {
  kind: ProviderErrorKind;
  index: number;
  contentIndex: number | null;
  /** What the API says, word for word. */
  text: string;
  /** The blocks (or, for a whole message, its first block) the violation is about. */
  blocks: RequestBlock[];
  messageIds: string[];
}

/**
 * `adaptive`: thinking on, as the prefix-checking models run it (they think adaptively; Sonnet and Haiku 5.5 reject
 * `enabled`), which drops manual mode's rule that the final assistant turn of a tool loop start with thinking
 * (../shared/reference/preserved-thinking.md §5). The other thinking rules hold as they do with `on`.
 */
export type ThinkingMode = "on" | "off" | "adaptive";

const THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
const isThinking = (b: RequestBlock) => b.type === "thinking" || b.type === "redacted_thinking";

/**
 * `auto`: thinking is on when the conversation carries signed thinking (the model was run with it); adaptive when the
 * newest of that thinking came from a model that thinks only adaptively.
 */
export function thinkingMode(request: AnthropicRequest, wanted: "on" | "off" | "auto"): ThinkingMode {
  if (wanted !== "auto") return wanted;
  // From the end: a scan judges every session, and the newest thinking is usually in the last turns.
  for (let m = request.messages.length - 1; m >= 0; m--) {
    const message = request.messages[m]!;
    if (message.role !== "assistant") continue;
    const newest = message.content.findLast(isThinking);
    if (newest) return isPrefixBound(newest.model) ? "adaptive" : "on";
  }
  return "off";
}

export interface ValidateOptions {
  /**
   * Judge the request as the agent's next call mid tool loop (it ends in tool results the model must now answer).
   * A stored opencode session never ends so: after its last turn the user writes next, and whether the API still
   * holds the earlier tool turn to the thinking rule is then not known offline; scans leave this off.
   */
  midToolLoop?: boolean;
  /**
   * Hold the request to strict role alternation, as Bedrock's Converse API does. The Messages API combines
   * consecutive turns of one role, and Claude Code sends two user messages in a row for every `@file` prompt
   * (fixtures/claude-code-2.1/at-file), so a scan leaves this off.
   */
  alternation?: boolean;
}

/**
 * What the API says of a request as it stands, thinking judged as the request shows it ("auto"), worked out once per
 * request and kept on it: the scan's provider-rejects and the planner's self-check both ask it of the planned
 * session's request.
 */
const VIOLATIONS = Symbol("violations");

export function requestViolations(request: AnthropicRequest): readonly Violation[] {
  return carried(request, VIOLATIONS, () => validateAnthropic(request, thinkingMode(request, "auto")));
}

export function validateAnthropic(request: AnthropicRequest, thinking: ThinkingMode, options: ValidateOptions = {}): Violation[] {
  const found: Violation[] = [];
  const messages = request.messages;
  const add = (kind: ProviderErrorKind, index: number, contentIndex: number | null, text: string, blocks: RequestBlock[]) =>
    found.push({ kind, index, contentIndex, text, blocks, messageIds: messages[index]?.sourceMessageIds ?? [] });

  if (messages[0] && messages[0].role !== "user")
    add("first_not_user", 0, null, 'messages: first message must use the "user" role', messages[0].content.slice(0, 1));
  const seenToolUse = new Map<string, number>();
  messages.forEach((message, n) => {
    // A system turn (Claude Code's reminders on current models) is the client's own text, and no turn of the pairing.
    if (message.role === "system") return;
    const last = n === messages.length - 1;
    if (message.content.length === 0 && !(last && message.role === "assistant")) {
      add("empty_content", n, null, `messages.${n}: all messages must have non-empty content except for the optional final assistant message`, []);
    }
    if (options.alternation && n > 0 && messages[n - 1]!.role === message.role) {
      add(
        "roles_not_alternating",
        n,
        null,
        `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`,
        message.content.slice(0, 1),
      );
    }
    message.content.forEach((block, m) => {
      if (block.type === "text" && block.blank) {
        add(
          "empty_content",
          n,
          m,
          block.chars === 0 ? "messages: text content blocks must be non-empty" : "text content blocks must contain non-whitespace text",
          [block],
        );
      }
      if (block.type === "thinking" && block.blank) {
        add("thinking_empty", n, m, `messages.${n}.content.${m}.thinking: each thinking block must contain non-whitespace thinking`, [block]);
      }
      if (block.type === "tool_use" && block.id !== undefined) {
        if (seenToolUse.has(block.id)) add("duplicate_tool_id", n, m, `messages.${n}.content.${m}: \`tool_use\` ids must be unique`, [block]);
        else seenToolUse.set(block.id, n);
      }
    });
    if (message.role === "assistant") validateAssistant(message.content, n, last, thinking, add);
    else validateToolResults(messages, n, add);
  });
  if (options.midToolLoop) validateFinalTurnThinking(request, thinking, add);
  return found;
}

type Add = (kind: ProviderErrorKind, index: number, contentIndex: number | null, text: string, blocks: RequestBlock[]) => void;

function validateAssistant(content: RequestBlock[], n: number, last: boolean, thinking: ThinkingMode, add: Add): void {
  const first = content[0];
  if (first && !isThinking(first) && content.some(isThinking)) {
    const misplaced = content.filter(isThinking);
    add(
      "thinking_order",
      n,
      0,
      `messages.${n}.content.0: If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking. Found ${first.type}.`,
      misplaced,
    );
  }
  const tail = content.at(-1);
  if (tail && isThinking(tail)) add("trailing_thinking", n, null, `messages.${n}: The final block in an assistant message cannot be \`thinking\`.`, [tail]);
  if (thinking === "off" && last) {
    const m = content.findIndex(isThinking);
    if (m >= 0) {
      add(
        "thinking_when_disabled",
        n,
        m,
        `messages.${n}.content.${m}: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
        content.filter(isThinking),
      );
    }
  }
}

/** Every tool_use is answered in the very next message, whose tool_results come first and answer only those. */
function validateToolResults(messages: AnthropicRequest["messages"], n: number, add: Add): void {
  const message = messages[n]!;
  // Walked back from n: a findLast over the whole list made validating a long request quadratic.
  let before = n - 1;
  while (before >= 0 && messages[before]!.role === "system") before--;
  const previous = before >= 0 ? messages[before] : undefined;
  const uses = previous?.role === "assistant" ? previous.content.filter((b) => b.type === "tool_use") : [];
  const answered = new Set(message.content.filter((b) => b.type === "tool_result").map((b) => b.id));
  const missing = uses.filter((u) => !answered.has(u.id));
  if (missing.length > 0) {
    const ids = missing.map((u) => u.id).join(", ");
    add(
      "orphan_tool_use",
      n - 1,
      null,
      `messages.${n - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      missing,
    );
  }
  const useIds = new Set(uses.map((u) => u.id));
  message.content.forEach((block, m) => {
    if (block.type === "tool_result" && !useIds.has(block.id)) {
      add(
        "orphan_tool_result",
        n,
        m,
        `messages.${n}.content.${m}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        [block],
      );
    }
  });
  const leading = message.content.findIndex((b) => b.type !== "tool_result");
  const results = message.content.filter((b) => b.type === "tool_result").length;
  const firstResults = leading === -1 ? message.content.length : leading;
  if (uses.length > 0 && firstResults < Math.min(results, uses.length)) {
    add(
      "tool_result_not_first",
      n,
      null,
      `messages.${n}: Did not find ${uses.length} tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.`,
      message.content.slice(0, 1),
    );
  }
}

/**
 * With thinking on, the assistant message that holds the lastmost set of tool_use blocks, when the request ends in
 * their results (the agent is mid tool loop), must start with a thinking block.
 */
function validateFinalTurnThinking(request: AnthropicRequest, thinking: ThinkingMode, add: Add): void {
  if (thinking !== "on") return;
  const messages = request.messages;
  const last = messages.at(-1);
  if (last?.role !== "user" || last.content.length === 0 || !last.content.every((b) => b.type === "tool_result")) return;
  const n = messages.length - 2;
  const turn = messages[n];
  const first = turn?.content[0];
  if (turn?.role !== "assistant" || !first || isThinking(first)) return;
  add(
    "thinking_order",
    n,
    0,
    `messages.${n}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`,
    [first],
  );
}
