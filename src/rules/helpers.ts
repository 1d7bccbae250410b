/** Small shared readings of a SessionView, so each rule states its condition and nothing else. */
import type { Block } from "../model/conversation.js";
import { readableParts, type MessageRecord } from "../model/opencode-records.js";
import { EXPANDED_FILE_MIMES, type Part } from "../model/opencode.js";
import type { RecordRef } from "../model/record.js";
import type { SessionView } from "../model/session-view.js";
import type { Report } from "./rule.js";
import type { TranscriptLine } from "../model/transcript.js";

export function messages(view: SessionView): MessageRecord[] {
  return view.opencode?.messages ?? [];
}

/** Readable parts of a message with their records. */
export const parts = readableParts;

export function isLiveTail(view: SessionView, messageId: string | undefined): boolean {
  return messageId !== undefined && messageId === view.liveTailMessageId;
}

/** Rules about what is sent skip the live tail (still being written) and damaged messages (reported elsewhere). */
export function isExempt(view: SessionView, messageId: string | undefined): boolean {
  return messageId !== undefined && (messageId === view.liveTailMessageId || view.damagedMessageIds.has(messageId));
}

type Place = Pick<RecordRef, "id" | "messageId" | "path" | "line"> & { kind: string };

/** Where a record (or the record behind a block) is, as a finding names it. */
export function where(record: { ref: Place }): Omit<Report, "message"> {
  const ref = record.ref;
  const place: Omit<Report, "message"> =
    ref.kind === "message" ? { messageId: ref.id } : { partId: ref.id, ...(ref.messageId ? { messageId: ref.messageId } : {}) };
  if (ref.path) place.path = ref.path;
  if (ref.line !== undefined) place.line = ref.line;
  return place;
}

export function at(record: { ref: RecordRef }, message: string): Report {
  return { ...where(record), message };
}

export function atBlock(block: Block, message: string): Report {
  return { ...where({ ref: block.source }), message };
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
      return role === "user" && !EXPANDED_FILE_MIMES.has((part as { mime: string }).mime);
    case "compaction":
    case "subtask":
      return role === "user";
    default:
      return false;
  }
}

/**
 * Finished assistant messages opencode sends (no error) whose sendable content is reasoning alone. An unfinished
 * one is incomplete-message's finding: completing it as aborted makes opencode skip it.
 */
export function isThinkingOnly(message: MessageRecord): boolean {
  const info = message.info;
  if (info?.role !== "assistant" || info.error || info.time.completed === undefined) return false;
  const sendable = parts(message).filter((p) => isSendable("assistant", p.part));
  return sendable.length > 0 && sendable.every((p) => p.part.type === "reasoning");
}

export function isAnthropicModel(providerID: string, modelID: string): boolean {
  return providerID === "anthropic" || /claude/i.test(modelID);
}

/** Session, message and part records whose stored form has a problem of this kind, with a label for each. */
export function recordsWithProblem(view: SessionView, kind: "unreadable" | "schema"): { report: Omit<Report, "message">; label: string; detail: string }[] {
  const session = view.opencode;
  if (!session) return [];
  const found: { report: Omit<Report, "message">; label: string; detail: string }[] = [];
  if (session.problem?.kind === kind)
    found.push({ report: session.sessionRef.path ? { path: session.sessionRef.path } : {}, label: "session", detail: session.problem.detail });
  for (const message of session.messages) {
    if (message.problem?.kind === kind) found.push({ report: where(message), label: "message", detail: message.problem.detail });
    for (const part of message.parts) {
      if (part.problem?.kind === kind) found.push({ report: where(part), label: "part", detail: part.problem.detail });
    }
  }
  return found;
}

/** Where a transcript line is, as a finding names it (the line's record id, its file and line number). */
export function atLine(line: TranscriptLine, message: string): Report {
  return { messageId: line.ref.id, ...(line.ref.path ? { path: line.ref.path } : {}), line: line.ref.line, message };
}
