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
import { compareVersions } from "../checked-clients.js";

export function claudeReplay(
  messages: ConversationMessage[],
  session: ReplaySession,
): { messages: ConversationMessage[]; skipped: SkippedMessage[]; withheld: WithheldMedium[]; rejectedMediaIn: string[] } {
  const healed = withoutRejectedMedia(withoutOrphanResults(messages), session.chain);
  const left = leaveOutThinkingOnly(healed.messages, joinsAroundLeftOut(session.clientVersion));
  const model = currentModel(session.chain);
  // The media budget is the client's last step before it sends (claude-media.ts).
  const budgeted = withMediaBudget(takesSystemTurns(model) ? withSystemTurns(left.messages) : left.messages, model, session.clientVersion);
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
 * The first Claude Code measured to send the user messages on either side of a left-out thinking-only message as one
 * (issue 40, scenario `thinking-text-emptied`: 2.1.197 sends them as two user messages in a row, 2.1.277 and 2.1.332
 * as one; the versions between were not run). The API takes both, so the difference only moves `messages.N`.
 */
const JOINS_AROUND_LEFT_OUT = "2.1.277";

/** Whether the client joins the user messages around a message it left out; a version recover cannot place: yes. */
function joinsAroundLeftOut(version: string | undefined): boolean {
  const order = version === undefined ? undefined : compareVersions(version, JOINS_AROUND_LEFT_OUT);
  return order === undefined || order >= 0;
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
