/**
 * What Claude Code does to the merged history before it sends it (measured with the real client, 2.1.197 and 2.1.331:
 * docs/research/claude-code-prefix-thinking.md; 2.1.197, 2.1.277 and 2.1.332: scenario `thinking-text-emptied`): an
 * assistant message of thinking only is left out, and on a model that takes system turns in `messages` the session's
 * context reminders go as a `role: "system"` message of their own; last, it keeps to its media budget (claude-media.ts).
 * recover's view is what is sent, so `messages.N` in an API error lands where the client put it.
 */
import type { ConversationMessage, SkippedMessage, TextBlock, WithheldMedium } from "../../model/conversation.js";
import { withMediaBudget, withoutRejectedMedia } from "./claude-media.js";
import type { TranscriptLine } from "../../model/transcript.js";
import { obj, str, type ReplaySession } from "./dialect.js";
import { isAtLeast, isAtMost } from "../checked-clients.js";

export function claudeReplay(
  messages: ConversationMessage[],
  session: ReplaySession,
): { messages: ConversationMessage[]; skipped: SkippedMessage[]; withheld: WithheldMedium[]; rejectedMediaIn: string[] } {
  const healed = withoutRejectedMedia(withoutOrphanResults(withoutRepeatedCalls(messages)), session.chain);
  const left = leaveOutThinkingOnly(healed.messages, joinsAroundLeftOut(session.clientVersion));
  const model = currentModel(session.chain);
  const sent = takesSystemTurns(model) ? withSystemTurns(left.messages) : left.messages;
  const ordered = leadsWithOwnContext(session.clientVersion) ? withOwnContextFirst(sent) : sent;
  // The media budget is the client's last step before it sends (claude-media.ts).
  const budgeted = withMediaBudget(ordered, model, session.clientVersion);
  return { messages: budgeted.messages, skipped: left.skipped, withheld: budgeted.withheld, rejectedMediaIn: healed.healed };
}

/**
 * A tool result whose call is nowhere before it is not sent: the client takes it out of its message, and a message
 * left with nothing goes as the text "(no content)" (2.1.197 and 2.1.332, measured: scenario orphan-result). The
 * orphan-tool-result rule still sees it in the stored history (a warning there).
 */
function withoutOrphanResults(messages: ConversationMessage[]): ConversationMessage[] {
  const called = new Set<string>();
  return messages.map((message) => {
    for (const block of message.blocks) if (block.type === "tool_use") called.add(block.id);
    if (message.role !== "user" || !message.blocks.some((b) => b.type === "tool_result" && !called.has(b.toolUseId))) return message;
    const kept = message.blocks.filter((b) => b.type !== "tool_result" || called.has(b.toolUseId));
    if (kept.length > 0) return { ...message, blocks: kept };
    const source = message.blocks[0]!.source;
    return { ...message, blocks: [{ type: "text", source, chars: NO_CONTENT.length, text: NO_CONTENT, blank: false, synthetic: true }] };
  });
}
const NO_CONTENT = "(no content)";

/**
 * A tool call whose id a call of an earlier assistant message already holds is not sent, nor its result in the next
 * message; a message left with nothing goes as "[Tool use interrupted]" (an assistant one) or "(no content)" (a user
 * one). The client's ensureToolResultPairing; 2.1.197 and 2.1.332, measured: scenario duplicate-call-id. A repeat
 * within one message is sent as stored (the client's handling of its two results was not measured), so
 * duplicate-tool-call-id still calls it an error.
 */
function withoutRepeatedCalls(messages: ConversationMessage[]): ConversationMessage[] {
  const earlier = new Set<string>();
  let dropped = new Set<string>();
  return messages.map((message) => {
    if (message.role === "assistant") {
      const ids = message.blocks.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
      dropped = new Set(ids.filter((id) => earlier.has(id)));
      for (const id of ids) earlier.add(id);
      if (dropped.size === 0) return message;
      const kept = message.blocks.filter((b) => b.type !== "tool_use" || !dropped.has(b.id));
      return { ...message, blocks: kept.length > 0 ? kept : [synthetic(message, TOOL_USE_INTERRUPTED)] };
    }
    if (dropped.size === 0 || message.role !== "user") return message;
    const answered = dropped;
    dropped = new Set();
    const kept = message.blocks.filter((b) => b.type !== "tool_result" || !answered.has(b.toolUseId));
    if (kept.length === message.blocks.length) return message;
    return { ...message, blocks: kept.length > 0 ? kept : [synthetic(message, NO_CONTENT)] };
  });
}
const TOOL_USE_INTERRUPTED = "[Tool use interrupted]";

/** A text the client sends in place of a message it emptied, sourced at the message's first block. */
function synthetic(message: ConversationMessage, text: string): TextBlock {
  return { type: "text", source: message.blocks[0]!.source, chars: text.length, text, blank: false, synthetic: true };
}

/**
 * The first Claude Code measured to send the user messages on either side of a left-out thinking-only message as one
 * (issue 40, scenario `thinking-text-emptied`: 2.1.197 sends them as two user messages in a row, 2.1.277 and 2.1.332
 * as one; the versions between were not run). The API takes both, so the difference only moves `messages.N`.
 */
const JOINS_AROUND_LEFT_OUT = "2.1.277";

/** Whether the client joins the user messages around a message it left out; a version recover cannot place: yes. */
function joinsAroundLeftOut(version: string | undefined): boolean {
  return isAtLeast(version, JOINS_AROUND_LEFT_OUT, true);
}

/**
 * Claude Code leaves out an assistant message that holds only thinking (a reply whose text was blank, or cut off
 * after its thinking), and (`join`: from 2.1.277 on) the user messages on either side of it go as one. What it leaves
 * out changes nothing in the request.
 */
function leaveOutThinkingOnly(messages: ConversationMessage[], join: boolean): { messages: ConversationMessage[]; skipped: SkippedMessage[] } {
  const kept: ConversationMessage[] = [];
  const skipped: SkippedMessage[] = [];
  let leftOut = false;
  for (const message of messages) {
    if (message.role === "assistant" && message.blocks.length > 0 && message.blocks.every((b) => b.type === "thinking")) {
      for (const id of message.sourceMessageIds) skipped.push({ messageId: id, reason: "an assistant message of thinking only, which Claude Code leaves out" });
      leftOut = true;
      continue;
    }
    const last = kept.at(-1);
    if (join && leftOut && last?.role === "user" && message.role === "user") {
      kept[kept.length - 1] = {
        role: "user",
        blocks: [...last.blocks, ...message.blocks],
        sourceMessageIds: [...last.sourceMessageIds, ...message.sourceMessageIds.filter((id) => !last.sourceMessageIds.includes(id))],
      };
    } else kept.push(message);
    leftOut = false;
  }
  return { messages: kept, skipped };
}

/**
 * The last Claude Code measured to send its user context (the date, CLAUDE.md: "As you answer the user's questions, you
 * can use the following context") at the head of the history it sends, which it does not store: leading blocks of the
 * first user message, or a user message of its own when the history begins with an assistant turn (issue 40, scenario
 * leading-assistant: 2.1.197 sends that message; 2.1.277, 2.1.331 and 2.1.332 send the assistant turn first, which the
 * API refuses; the versions between were not run).
 */
const LAST_OWN_CONTEXT = "2.1.197";

/** Whether the client leads the history with its own context; a version recover cannot place: no (the error stays). */
function leadsWithOwnContext(version: string | undefined): boolean {
  return isAtMost(version, LAST_OWN_CONTEXT, false);
}

const OWN_CONTEXT = "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n</system-reminder>";

/** A history that begins with an assistant turn gets the client's context as a user message before it. */
function withOwnContextFirst(messages: ConversationMessage[]): ConversationMessage[] {
  const first = messages[0];
  if (first?.role !== "assistant" || first.blocks.length === 0) return messages;
  const block: TextBlock = { type: "text", source: first.blocks[0]!.source, chars: OWN_CONTEXT.length, text: OWN_CONTEXT, blank: false, synthetic: true };
  return [{ role: "user", blocks: [block], sourceMessageIds: [] }, ...messages];
}

/**
 * The model the client continues with: the last assistant line's `message.model` (the client's own `<synthetic>`
 * replies name none). A resume may pick another model with `--model`; the stored one is the best guess.
 */
function currentModel(chain: readonly TranscriptLine[]): string | undefined {
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = chain[i]!.value;
    if (value?.type !== "assistant") continue;
    const model = str(obj(value.message)?.model);
    if (model !== undefined && model !== "<synthetic>") return model;
  }
  return undefined;
}

/**
 * Claude Code sends mid-conversation system turns to every model after Opus 4.8 (its `mid_conv_system` switch:
 * on unless the model is Opus 4.8 or older, or its capabilities say otherwise; none do in 2.1.331): measured on
 * claude-opus-5-5 (a system turn) and claude-sonnet-4-5 (none, the reminders lead the prompt as user text).
 */
const GENERATION = /claude-[a-z]+-(\d+)(?:[-.]\d+)?(?!\d)/i;
export function takesSystemTurns(model: string | undefined): boolean {
  const major = model === undefined ? undefined : GENERATION.exec(model)?.[1];
  return major !== undefined && Number(major) >= 5;
}

const OPEN = "<system-reminder>\n";
const CLOSE = "\n</system-reminder>";
/** A rendering as it goes in a system turn: without its `<system-reminder>` wrapper. */
const unwrapped = (text: string) => (text.startsWith(OPEN) && text.endsWith(CLOSE) ? text.slice(OPEN.length, -CLOSE.length) : text);

/**
 * The reminders Claude Code renders in the system role (`renderedRole: "system"`; 2.1.197: the agent and skill
 * listings) leave the user message of their run and follow it as one system message: their renderings unwrapped
 * and joined by a blank line, in one text block (a string once it is no longer the last message).
 */
function withSystemTurns(messages: ConversationMessage[]): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const message of messages) {
    const reminders = message.role === "user" ? message.blocks.filter((b): b is TextBlock => b.type === "text" && b.systemTurn === true) : [];
    if (reminders.length === 0) {
      out.push(message);
      continue;
    }
    const rest = message.blocks.filter((b) => !reminders.includes(b as TextBlock));
    const ownIds = new Set(reminders.map((b) => b.source.messageId ?? b.source.id));
    const stillUser = new Set(rest.map((b) => b.source.messageId ?? b.source.id));
    const text = reminders.map((b) => unwrapped(b.text ?? "")).join("\n\n");
    if (rest.length > 0)
      out.push({ ...message, blocks: rest, sourceMessageIds: message.sourceMessageIds.filter((id) => !ownIds.has(id) || stillUser.has(id)) });
    out.push({
      role: "system",
      blocks: [{ type: "text", source: reminders[0]!.source, chars: text.length, text, blank: false, synthetic: true }],
      sourceMessageIds: [...ownIds],
    });
  }
  return out;
}
