/**
 * What openclaw 2026.9 does to a stored history before it sends it (docs/research/openclaw-request.md §A–C, captured
 * from the real client): empty text never goes out, a failed turn goes out as a fixed sentence or not at all, and
 * stored thinking is replayed only as the model policy and the thinking level allow. recover's view is what is sent,
 * so positions in an API error land where the client put them, and a rule never judges what the client drops.
 */
import type { Block, ConversationMessage, SkippedMessage, TextBlock } from "../../model/conversation.js";
import type { TranscriptLine } from "../../model/transcript.js";
import { obj, str, type ReplaySession } from "./dialect.js";
import { collect } from "../../model/collect.js";

/** What openclaw sends in place of a failed turn that had text (`resolveFailedAssistantReplay`). */
export const OPENCLAW_FAILED_TURN_TEXT = "[This turn failed before it completed. Do not redo its work without confirming with the user first.]";
/** What openclaw sends for an assistant message whose thinking its model policy dropped, when nothing else is left. */
export const OPENCLAW_REASONING_OMITTED = "[assistant reasoning omitted]";

/** Claude models whose earlier turns' thinking openclaw replays (`shouldDropClaudeThinkingBlocks` is false for them). */
const PRESERVES_THINKING = /opus-4-[5-8]|opus-5|sonnet-4-6|sonnet-5|fable-5|mythos-5|mythos-preview/;
const FAILED = new Set(["error", "aborted"]);

interface Model {
  provider?: string;
  id: string;
}

export function openclawReplay(messages: ConversationMessage[], session: ReplaySession): { messages: ConversationMessage[]; skipped: SkippedMessage[] } {
  const model = currentModel(session.chain);
  const thinkingOff = thinkingLevel(session.chain) === "off";
  const dropsEarlierThinking = model !== undefined && /claude/i.test(model.id) && !PRESERVES_THINKING.test(model.id);
  const latest = messages.findLastIndex((m) => m.role === "assistant");
  // A tool loop still running: the latest assistant message called tools and only their results came after it.
  const activeToolTurn =
    latest >= 0 &&
    messages[latest]!.blocks.some((b) => b.type === "tool_use") &&
    messages.slice(latest + 1).every((m) => m.role === "user" && m.blocks.every((b) => b.type === "tool_result"));
  const kept: ConversationMessage[] = [];
  const skipped: SkippedMessage[] = [];
  const skip = (message: ConversationMessage, reason: string) => {
    for (const messageId of message.sourceMessageIds) skipped.push({ messageId, reason });
  };
  messages.forEach((message, index) => {
    const blocks = message.blocks.filter((b) => !(b.type === "text" && b.blank));
    if (message.role === "user") {
      // Seen: an empty text beside other content is dropped. A prompt of nothing but blank text was not seen sent
      // (openclaw's own file repair turns it into "(continue)"), so it stays in the view for empty-text-part to judge.
      kept.push(blocks.length > 0 ? { ...message, blocks } : message);
      return;
    }
    const lines = message.sourceMessageIds.map((id) => session.lineOf(id));
    if (lines.every((line) => FAILED.has(str(messageOf(line)?.stopReason) ?? "")) && !blocks.some((b) => b.type === "tool_use")) {
      const text = blocks.find((b): b is TextBlock => b.type === "text");
      if (text) kept.push({ ...message, blocks: [{ ...text, text: OPENCLAW_FAILED_TURN_TEXT, chars: OPENCLAW_FAILED_TURN_TEXT.length, synthetic: true }] });
      else skip(message, "openclaw leaves out a failed turn with no text");
      return;
    }
    const isLatest = index === latest;
    const sameModel = model === undefined || lines.every((line) => sameAs(model, messageOf(line)));
    let policyDropped = false;
    const sent = collect(blocks, (block): Block[] => {
      if (block.type !== "thinking") return [block];
      if (thinkingOff && !(isLatest && activeToolTurn)) return [];
      if (dropsEarlierThinking && !isLatest) {
        policyDropped = true;
        return [];
      }
      // Earlier turns' thinking without a signature is stripped; empty unsigned thinking never goes out.
      if (!block.redacted && !block.signed && (!isLatest || block.blank)) return [];
      if (sameModel) return [block];
      // Another model's thinking: its text as plain text, nothing when empty or redacted.
      if (block.redacted || block.blank) return [];
      return [{ type: "text", source: block.source, chars: block.chars, text: block.text ?? "", blank: false }];
    });
    if (sent.length > 0) kept.push({ ...message, blocks: sent });
    else if (policyDropped) {
      const first = message.blocks[0]!;
      kept.push({
        ...message,
        blocks: [
          { type: "text", source: first.source, chars: OPENCLAW_REASONING_OMITTED.length, text: OPENCLAW_REASONING_OMITTED, blank: false, synthetic: true },
        ],
      });
    } else skip(message, "openclaw leaves out an assistant message with nothing to send");
  });
  return { messages: kept, skipped };
}

function messageOf(line: TranscriptLine | undefined) {
  return obj(line?.value?.message);
}

/** The model the next request goes to: the latest model change on the chain, else the latest answer's model. */
function currentModel(chain: readonly TranscriptLine[]): Model | undefined {
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = chain[i]!.value;
    if (value?.type === "model_change" && typeof value.modelId === "string") return withProvider(value.modelId, str(value.provider));
    const message = messageOf(chain[i]);
    if (message?.role === "assistant" && typeof message.model === "string") return withProvider(message.model, str(message.provider));
  }
  return undefined;
}

function withProvider(id: string, provider: string | undefined): Model {
  return provider === undefined ? { id } : { id, provider };
}

function thinkingLevel(chain: readonly TranscriptLine[]): string | undefined {
  for (let i = chain.length - 1; i >= 0; i--) {
    const value = chain[i]!.value;
    if (value?.type === "thinking_level_change") return str(value.thinkingLevel);
  }
  return undefined;
}

/** An answer of the model the request goes to (one that names no model is taken to be). */
function sameAs(model: Model, message: Record<string, unknown> | undefined): boolean {
  const id = str(message?.model);
  if (id === undefined) return true;
  const provider = str(message?.provider);
  return id === model.id && (provider === undefined || model.provider === undefined || provider === model.provider);
}
