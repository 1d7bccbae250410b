/**
 * Gemini CLI's chat file (0.61: `~/.gemini/tmp/<project>/chats/session-*.jsonl`; docs/research/gemini-request.md):
 * metadata lines, message records, `$set` and `$rewindTo` lines. Its records are not one per line (a record is
 * appended again when it changes, a `$set.messages` line holds the whole list), so the history is built from every
 * line at once (records.ts) and each sent block's handle names its path inside its line (`$set.messages.3.content.0`,
 * `toolCalls.0.result.0`). What is sent is what the client's `convertSessionToClientHistory` makes of the records:
 * user parts; a gemini record's text, then one `functionCall` per recorded tool call, then the recorded results as a
 * user turn; thoughts are never sent.
 */
import type { Block, SkippedMessage } from "../../model/conversation.js";
import type { SentEntry } from "../../model/session-view.js";
import type { LineRole, TranscriptLine } from "../../model/transcript.js";
import { jsonLength } from "../opencode/part-content.js";
import { type Dialect, handle, type Json, obj, str, textBlock, timeOf, toolResultBlock, toolUseBlock } from "../transcript/dialect.js";
import { carried } from "../../model/carried.js";
import { effectiveRecords, fieldPath, isMessageRecord, type PlacedRecord } from "./records.js";
import { collect } from "../../model/collect.js";
import { HEADER_LOST, salvageHeader } from "./salvage.js";

/** User text the client never sends (it makes a fresh session context instead; slash and help commands). */
const UNSENT_USER_TEXT = /^(?:<session_context>|<hook_context>|\/|\?)/;

/** What the client writes for a call that ended without running (coreToolScheduler's createCancelledResult). */
export const GEMINI_CANCELLED = "[Operation Cancelled] Reason: User cancelled tool execution.";

const PLACED = Symbol("placed records");

/** A session's effective records, worked out once: the view asks for its entries and for its stored errors. */
function placedRecords(lines: readonly TranscriptLine[]): PlacedRecord[] {
  return carried(lines, PLACED, () => effectiveRecords(lines));
}

export const geminiDialect: Dialect = {
  name: "gemini",
  agent: "Gemini CLI",
  // Compact lines, and the 2-space layout of a legacy .json session.
  messageMarkers: ['"type":"user"', '"type":"gemini"', '"type": "user"', '"type": "gemini"'].map((m) => Buffer.from(m)),
  /** The file opens with the metadata: a sessionId and a projectHash (one line, or the top of a legacy document). */
  sniff: (head) => /^[\s\0]*\{/.test(head) && /"sessionId"\s*:/.test(head.slice(0, 2048)) && /"projectHash"\s*:/.test(head.slice(0, 2048)),
  oneDocument: (path) => path.endsWith(".json"),
  salvageHeader(text) {
    const value = salvageHeader(text);
    return value ? { value, lost: HEADER_LOST } : undefined;
  },
  idField: "id",
  parentField: "parentId",
  linear: true,
  interpret(value) {
    const time = timeOf(value.timestamp);
    let role: LineRole | undefined;
    if (typeof value.sessionId === "string" && typeof value.projectHash === "string") role = Array.isArray(value.messages) ? "structure" : "meta";
    else if (value.$rewindTo !== undefined) role = "structure";
    else if (obj(value.$set)) role = Array.isArray(obj(value.$set)!.messages) ? "structure" : "meta";
    else if (isMessageRecord(value)) role = "message";
    if (role === undefined) return { role: "unknown" };
    // A record's own id names its line (its first line, when it was appended again), as findings and diffs show it.
    const named = role === "message" ? { uuid: value.id as string } : {};
    return time === undefined ? { role, ...named } : { role, time, ...named };
  },
  send() {
    return undefined;
  },
  entries(lines) {
    const sent: SentEntry[] = [];
    const skipped: SkippedMessage[] = [];
    const counters = new Map<TranscriptLine, number>();
    const next = (line: TranscriptLine) => {
      const n = counters.get(line) ?? 0;
      counters.set(line, n + 1);
      return n;
    };
    for (const placed of placedRecords(lines)) {
      const { record, line, path } = placed;
      if (record.type === "user") {
        const blocks = userBlocks(placed, next);
        if (blocks) sent.push({ line, role: "user", blocks });
        else skipped.push({ messageId: line.ref.id, reason: "a user record the client does not send (session context, a command, or empty)" });
      } else if (record.type === "gemini") {
        const model = modelBlocks(placed, next);
        sent.push({ line, role: "assistant", blocks: model });
        const results = collect(Array.isArray(record.toolCalls) ? record.toolCalls : [], (call, j) => {
          const result = obj(call)?.result;
          if (!Array.isArray(result)) return [];
          return collect(result, (part, k) => partBlock(line, next, obj(part), fieldPath(path, `toolCalls.${j}.result.${k}`)));
        });
        if (results.length > 0) sent.push({ line, role: "user", blocks: results });
      } else {
        skipped.push({ messageId: line.ref.id, reason: `a${record.type === "info" ? "n" : ""} ${String(record.type)} record, which the client does not send` });
      }
    }
    return { sent, skipped };
  },
  sentLines(chain) {
    return [...chain];
  },
  /**
   * The interactive UI stores a refusal as a record of its own, `{ type: "error", content: "[API Error: <the API's
   * body>]" }`, then an `info` record (0.61.0, measured: scripts/clients/probes/gemini-ui-error.mjs); headless `-p`
   * stores none. Only a record on a line of its own is placed in the file's order: one inside a `$set` copy of the list
   * (the client rewrites it on resume) is left out, so an answered refusal is never taken for the last one.
   */
  storedErrors(lines) {
    return placedRecords(lines).flatMap(({ record, line, path }) => {
      const text = record.type === "error" && path === "" ? str(record.content) : undefined;
      return text ? [{ messageId: line.ref.id, where: `line ${line.ref.line}`, text }] : [];
    });
  },
  responseId() {
    return undefined;
  },
  /** A gemini record stores the last chunk's usage: `tokens.input` is the prompt the API counted. */
  promptTokens(line) {
    const tokens = obj(line.value?.tokens)?.input;
    return typeof tokens === "number" && tokens > 0 ? { tokens, source: "Gemini CLI stored" } : undefined;
  },
  /**
   * The project folder the client was started in, as its session context names it (`**Workspace Directories:**` then
   * `  - <path>`): the folder `gemini --resume` must run in (it lists the chats of the project of its working folder).
   * Found in a user record, a `$set.messages` copy or a legacy document alike.
   */
  directoryOf(value) {
    if (value.type !== "user" && value.$set === undefined && !Array.isArray(value.messages)) return undefined;
    const text = JSON.stringify(value);
    if (!text.includes("<session_context>")) return undefined;
    const found = /Workspace Directories:\*\*\\n\s*- ([^\\]+)\\n/.exec(text)?.[1];
    return found?.trim() || undefined;
  },
  promptOf(value) {
    // A legacy document: its first user message.
    if (Array.isArray(value.messages)) return value.messages.map((m) => geminiDialect.promptOf?.(obj(m) ?? {})).find((t) => t !== undefined);
    if (value.type !== "user" || !Array.isArray(value.content)) return undefined;
    const text = value.content.map((p) => str(obj(p)?.text) ?? "").join("\n");
    return text === "" || UNSENT_USER_TEXT.test(text) ? undefined : text;
  },
  api: "gemini",
  copes: {
    unreadableLine: "Gemini CLI skips the line when it resumes",
    emptyTurn: "Gemini CLI drops it when it resumes",
  },
};

type Counter = (line: TranscriptLine) => number;

/** The blocks of a user record, or undefined when the client does not send it. */
function userBlocks({ record, line, path }: PlacedRecord, next: Counter): Block[] | undefined {
  const content = record.content;
  if (isIgnoredUserContent(content)) return undefined;
  if (typeof content === "string") return [textBlock(line, next(line), fieldPath(path, "content"), content)];
  if (!Array.isArray(content)) return undefined;
  return collect(content, (part, i) => partBlock(line, next, obj(part), fieldPath(path, `content.${i}`)));
}

/** The client's `isIgnoredUserContent` of the record's text (parts other than text count as a marker, never empty). */
export function isIgnoredUserContent(content: unknown): boolean {
  const parts = typeof content === "string" ? [{ text: content }] : Array.isArray(content) ? content : [];
  const text = parts
    .map((p) => {
      const part = obj(p);
      return typeof part?.text === "string" ? part.text : part && Object.keys(part).length > 0 ? "[part]" : "";
    })
    .join("")
    .trim();
  return text === "" || UNSENT_USER_TEXT.test(text);
}

/**
 * A gemini record as the model turn the client sends: its content as is when it already holds calls or thoughts
 * (the shape a resume rewrites), else its text then one call per recorded tool call. Thoughts are stripped. A
 * turn left with nothing, or only empty text, is one blank block pointing at the record: the client drops it.
 */
function modelBlocks({ record, line, path }: PlacedRecord, next: Counter): Block[] {
  const content = record.content;
  const parts = Array.isArray(content) ? content : [];
  const rewritten = parts.some((p) => obj(p)?.functionCall !== undefined || obj(p)?.thought === true);
  const blocks: Block[] = [];
  if (Array.isArray(content)) {
    content.forEach((part, i) => {
      if (obj(part)?.thought === true) return;
      blocks.push(...partBlock(line, next, obj(part), fieldPath(path, `content.${i}`)));
    });
  } else if (typeof content === "string" && content !== "") {
    blocks.push(textBlock(line, next(line), fieldPath(path, "content"), content));
  }
  if (!rewritten && Array.isArray(record.toolCalls)) {
    record.toolCalls.forEach((entry, j) => {
      const call = obj(entry);
      if (!call) return;
      const source = handle(line, next(line), fieldPath(path, `toolCalls.${j}`));
      blocks.push(toolUseBlock(source, { id: str(call.id) ?? "", name: str(call.name) ?? "" }, call.args));
    });
  }
  if (blocks.every((b) => b.type === "text" && b.blank)) return [textBlock(line, next(line), path, "")];
  return blocks;
}

/** One part: text, a function call or response, inline data; anything else counts by its JSON. */
function partBlock(line: TranscriptLine, next: Counter, part: Json | undefined, field: string): Block[] {
  if (!part) return [];
  const index = next(line);
  const source = handle(line, index, field);
  if (typeof part.text === "string") return [textBlock(line, index, field, part.text)];
  const call = obj(part.functionCall);
  if (call) return [toolUseBlock(source, { id: str(call.id) ?? "", name: str(call.name) ?? "" }, call.args)];
  const response = obj(part.functionResponse);
  if (response) return [toolResultBlock(source, response.id, obj(response.response)?.error !== undefined, JSON.stringify(response.response ?? {}))];
  const inline = obj(part.inlineData);
  if (inline) {
    const data = str(inline.data) ?? "";
    return [{ type: "media", source, mime: str(inline.mimeType) ?? "application/octet-stream", chars: data.length, data }];
  }
  return [{ type: "text", source, chars: jsonLength(part), blank: false }];
}
