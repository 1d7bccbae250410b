/** Small shared readings of a SessionView, so each rule states its condition and nothing else. */
import type { Block } from "../model/conversation.js";
import type { MessageRecord, PartRecord } from "../model/opencode-records.js";
import type { Part } from "../model/opencode.js";
import type { SessionView } from "../model/session-view.js";
import type { Report } from "./rule.js";

export function messages(view: SessionView): MessageRecord[] {
  return view.opencode?.messages ?? [];
}

const readableParts = new WeakMap<MessageRecord, { record: PartRecord; part: Part }[]>();

/** Readable parts of a message with their records (computed once per message, several rules ask). */
export function parts(message: MessageRecord): { record: PartRecord; part: Part }[] {
  let found = readableParts.get(message);
  if (!found) {
    found = message.parts.flatMap((record) => (record.part ? [{ record, part: record.part }] : []));
    readableParts.set(message, found);
  }
  return found;
}

export function isLiveTail(view: SessionView, messageId: string | undefined): boolean {
  return messageId !== undefined && messageId === view.liveTailMessageId;
}

/** Rules about what is sent skip the live tail (still being written) and damaged messages (reported elsewhere). */
export function isExempt(view: SessionView, messageId: string | undefined): boolean {
  return messageId !== undefined && (messageId === view.liveTailMessageId || view.damagedMessageIds.has(messageId));
}

export function at(record: { ref: { id: string; messageId?: string; kind: string; path?: string; line?: number } }, message: string): Report {
  const ref = record.ref;
  const where: Omit<Report, "message"> = ref.kind === "message" ? { messageId: ref.id } : { partId: ref.id, ...(ref.messageId ? { messageId: ref.messageId } : {}) };
  if (ref.path) where.path = ref.path;
  if (ref.line !== undefined) where.line = ref.line;
  return { ...where, message };
}

export function atBlock(block: Block, message: string): Report {
  const s = block.source;
  const where: Omit<Report, "message"> = s.kind === "message" ? { messageId: s.id } : { partId: s.id, ...(s.messageId ? { messageId: s.messageId } : {}) };
  if (s.path) where.path = s.path;
  if (s.line !== undefined) where.line = s.line;
  return { ...where, message };
}

/** Part types whose content opencode sends for a message of this role (reference opencode.md §4). */
export function isSendable(role: "user" | "assistant", part: Part): boolean {
  switch (part.type) {
    case "text":
      return role === "assistant" || (part as { ignored?: boolean }).ignored !== true;
    case "reasoning":
    case "tool":
      return role === "assistant";
    case "file":
      return role === "user" && !["text/plain", "application/x-directory"].includes((part as { mime: string }).mime);
    case "compaction":
    case "subtask":
      return role === "user";
    default:
      return false;
  }
}

/** Assistant messages opencode sends (no error) whose sendable content is reasoning alone. */
export function isThinkingOnly(message: MessageRecord): boolean {
  const info = message.info;
  if (info?.role !== "assistant" || info.error) return false;
  const sendable = parts(message).filter((p) => isSendable("assistant", p.part));
  return sendable.length > 0 && sendable.every((p) => p.part.type === "reasoning");
}

export function isAnthropicModel(providerID: string, modelID: string): boolean {
  return providerID === "anthropic" || /claude/i.test(modelID);
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}
