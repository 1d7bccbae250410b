/**
 * Build the conversation view the way opencode builds its request (MessageV2.toModelMessages, reference
 * opencode.md §4), then shape it as the provider receives it: each assistant step (split at step-start) is an
 * assistant message followed by its tool results, and consecutive same-role messages merge into one.
 */
import type { Block, Conversation, ConversationMessage, Handle, ToolResultBlock } from "../../model/conversation.js";
import type { AssistantMessage, KnownPart, Part } from "../../model/opencode.js";
import {
  EXPANDED_FILE_MIMES,
  hasThinkingSignature,
  isKnownPart,
  isRedactedThinking,
  OPENCODE_INTERRUPTED_TOOL,
  thinkingSignatureOf,
} from "../../model/opencode.js";
import { readableParts, type MessageRecord, type PartRecord, type ReadablePart, type SessionRecords } from "../../model/opencode-records.js";
import { collect } from "../../model/collect.js";

const COMPACTED_OUTPUT = "[Old tool result content cleared]";
const COMPACTION_PROMPT = "What did we do so far?";
const SUBTASK_PROMPT = "The following tool was executed by the user";

interface Loaded {
  record: MessageRecord;
  parts: ReadablePart[];
}

export function opencodeConversation(session: SessionRecords): Conversation {
  const readable: Loaded[] = session.messages.filter((m) => m.info !== undefined).map((m) => ({ record: m, parts: readableParts(m) }));
  const skipped = session.messages.filter((m) => m.info === undefined).map((m) => ({ messageId: m.ref.id, reason: "unreadable record" }));
  const history = filterCompacted(readable);
  const current = currentModel(readable);
  const raw: ConversationMessage[] = [];
  for (const message of history) {
    const info = message.record.info!;
    if (message.parts.length === 0) {
      skipped.push({ messageId: message.record.ref.id, reason: "no parts" });
      continue;
    }
    if (info.role === "user") {
      const blocks = collect(message.parts, ({ record, part }) => userBlocks(record, part));
      // opencode 1.18 leaves out a user message with nothing to send, and its neighbours merge (captured:
      // fixtures/opencode-1.18/edited-text); empty-message judges the stored message itself.
      if (blocks.length === 0) skipped.push({ messageId: message.record.ref.id, reason: "nothing to send" });
      else raw.push({ role: "user", blocks, sourceMessageIds: [message.record.ref.id] });
      continue;
    }
    const skip = assistantSkipReason(info, message.parts);
    if (skip) {
      skipped.push({ messageId: message.record.ref.id, reason: skip });
      continue;
    }
    raw.push(...assistantSteps(message, info, current));
  }
  return {
    messages: mergeSameRole(raw),
    skipped,
    ...(history[0] ? { historyStartMessageId: history[0].record.ref.id } : {}),
  };
}

/** History starts at the last user message that has a compaction part answered by a finished summary. */
function filterCompacted(messages: Loaded[]): Loaded[] {
  const summarised = new Set<string>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const { record, parts } = messages[i]!;
    const info = record.info!;
    if (info.role === "user" && summarised.has(record.ref.id) && parts.some((p) => p.part.type === "compaction")) {
      return messages.slice(i);
    }
    if (info.role === "assistant" && info.summary === true && info.finish) summarised.add(info.parentID);
  }
  return messages;
}

/** The model the next request goes to: the latest user message's. Signatures from other models are not sent. */
function currentModel(messages: Loaded[]): { providerID: string; modelID: string } | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = messages[i]!.record.info!;
    if (info.role === "user") return info.model;
  }
  return undefined;
}

function assistantSkipReason(info: AssistantMessage, parts: Loaded["parts"]): string | undefined {
  if (!info.error) return undefined;
  const aborted = info.error.name === "MessageAbortedError";
  if (aborted && parts.some((p) => p.part.type !== "step-start" && p.part.type !== "reasoning")) return undefined;
  return `assistant error ${info.error.name}`;
}

// Blocks are built for every sendable part of every scanned session: plain assignments, no object spreads.
function handle(record: PartRecord, field?: string): Handle {
  const h: Handle = { kind: "part", id: record.ref.id };
  if (record.ref.messageId) h.messageId = record.ref.messageId;
  if (field) h.field = field;
  return h;
}

/** Attach the content itself, unless a lean load emptied it after measuring it. */
function withText<B extends Block>(block: B, record: PartRecord, text: string): B {
  if (!record.stripped) block.text = text;
  return block;
}

function withData(block: Block & { type: "media" }, record: PartRecord, url: string): Block {
  if (!record.stripped) block.data = url;
  return block;
}

function textBlock(record: PartRecord, text: string, synthetic = false): Block {
  const block: Block = {
    type: "text",
    source: handle(record, "text"),
    chars: record.content.textChars ?? text.length,
    blank: record.content.textBlank ?? text.trim() === "",
  };
  if (synthetic) block.synthetic = true;
  return withText(block, record, text);
}

function fixedText(record: PartRecord, text: string): Block {
  return { type: "text", source: handle(record), chars: text.length, blank: false, text };
}

function userBlocks(record: PartRecord, part: Part): Block[] {
  if (!isKnownPart(part)) return [];
  switch (part.type) {
    case "text":
      // opencode 1.18 sends a user text part unless it is ignored or "" (whitespace goes as it is).
      return part.ignored || isEmptyText(record, part.text) ? [] : [textBlock(record, part.text, part.synthetic === true)];
    case "file":
      if (EXPANDED_FILE_MIMES.has(part.mime)) return [];
      return [withData({ type: "media", mime: part.mime, source: handle(record, "url"), chars: record.content.urlChars ?? part.url.length }, record, part.url)];
    case "compaction":
      return [fixedText(record, COMPACTION_PROMPT)];
    case "subtask":
      return [fixedText(record, SUBTASK_PROMPT)];
    default:
      return [];
  }
}

/** One assistant message becomes one request message per step, each followed by its tool results. */
function assistantSteps(message: Loaded, info: AssistantMessage, current: { providerID: string; modelID: string } | undefined): ConversationMessage[] {
  const sameModel = !current || (current.providerID === info.providerID && current.modelID === info.modelID);
  const signedReasoning = sameModel && message.parts.some(({ part }) => isKnownPart(part) && part.type === "reasoning" && hasThinkingSignature(part.metadata));
  const out: ConversationMessage[] = [];
  let blocks: Block[] = [];
  let results: ToolResultBlock[] = [];
  let sawStep = false;
  const flush = () => {
    if (blocks.length > 0) out.push({ role: "assistant", blocks, sourceMessageIds: [message.record.ref.id] });
    if (results.length > 0) out.push({ role: "user", blocks: results, sourceMessageIds: [message.record.ref.id] });
    blocks = [];
    results = [];
  };
  for (const { record, part } of message.parts) {
    if (!isKnownPart(part)) continue;
    if (part.type === "step-start") {
      if (sawStep) flush();
      sawStep = true;
      continue;
    }
    const block = assistantBlock(record, part, sameModel, signedReasoning);
    if (!block) continue;
    if (block.use.type === "thinking" && info.modelID) block.use.model = info.modelID;
    blocks.push(block.use);
    if (block.result) results.push(block.result);
  }
  flush();
  return out;
}

/** A text part stored as "" (a lean load keeps its size, not its text). */
function isEmptyText(record: PartRecord, text: string): boolean {
  return (record.content.textChars ?? text.length) === 0;
}

/**
 * One sendable block of an assistant part, as opencode 1.18 sends it (captured: fixtures/opencode-1.18,
 * docs/research/opencode-request.md §B, §C): "" text is dropped, except in a message with signed reasoning, where it
 * goes as " " (which the API rejects as whitespace); reasoning of another model than the next request's goes as
 * plain text, or not at all when blank.
 */
function assistantBlock(
  record: PartRecord,
  part: KnownPart,
  sameModel: boolean,
  signedReasoning: boolean,
): { use: Block; result?: ToolResultBlock } | undefined {
  switch (part.type) {
    case "text":
      if (!isEmptyText(record, part.text)) return { use: textBlock(record, part.text) };
      return signedReasoning ? { use: { type: "text", source: handle(record, "text"), chars: 1, blank: true, text: " " } } : undefined;
    case "reasoning": {
      if (!sameModel) return (record.content.textBlank ?? part.text.trim() === "") ? undefined : { use: textBlock(record, part.text) };
      const signature = thinkingSignatureOf(part.metadata);
      const thinking: Block = {
        type: "thinking",
        source: handle(record, "text"),
        chars: record.content.textChars ?? part.text.length,
        signed: signature !== undefined,
      };
      if (signature !== undefined) thinking.signature = signature;
      if (thinking.signed && isRedactedThinking(part.metadata)) thinking.redacted = true;
      else thinking.blank = record.content.textBlank ?? part.text.trim() === "";
      return { use: withText(thinking, record, part.text) };
    }
    case "tool": {
      const use: Block = {
        type: "tool_use",
        id: part.callID,
        name: part.tool,
        source: handle(record, "state.input"),
        chars: record.content.inputChars ?? 0,
      };
      if (!record.stripped) use.input = part.state.input;
      return { use, result: toolResult(record, part) };
    }
    default:
      return undefined;
  }
}

function result(toolUseId: string, isError: boolean, source: Handle, chars: number): ToolResultBlock {
  return { type: "tool_result", toolUseId, isError, source, chars };
}

function toolResult(record: PartRecord, part: Extract<KnownPart, { type: "tool" }>): ToolResultBlock {
  const id = part.callID;
  const state = part.state;
  switch (state.status) {
    case "completed":
      if (state.time.compacted !== undefined) {
        const cleared = result(id, false, handle(record), COMPACTED_OUTPUT.length);
        cleared.text = COMPACTED_OUTPUT;
        return cleared;
      }
      return withText(result(id, false, handle(record, "state.output"), record.content.outputChars ?? 0), record, state.output);
    case "error": {
      const partial = state.metadata?.interrupted === true ? state.metadata.output : undefined;
      if (typeof partial === "string") {
        return withText(result(id, false, handle(record, "state.metadata.output"), record.content.metadataOutputChars ?? 0), record, partial);
      }
      return withText(result(id, true, handle(record, "state.error"), record.content.errorChars ?? 0), record, state.error);
    }
    default: {
      const interrupted = result(id, true, handle(record), OPENCODE_INTERRUPTED_TOOL.length);
      interrupted.text = OPENCODE_INTERRUPTED_TOOL;
      return interrupted;
    }
  }
}

function mergeSameRole(messages: ConversationMessage[]): ConversationMessage[] {
  const merged: ConversationMessage[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last && last.role === message.role) {
      for (const block of message.blocks) last.blocks.push(block);
      for (const id of message.sourceMessageIds) if (!last.sourceMessageIds.includes(id)) last.sourceMessageIds.push(id);
    } else {
      // The step messages built above are not shared: take them over instead of copying.
      merged.push(message);
    }
  }
  return merged;
}
