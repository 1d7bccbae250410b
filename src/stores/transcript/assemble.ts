/**
 * Bytes of a transcript file → its records: every line read on its own (read-lines.ts), interpreted by the
 * dialect, and given a stable id (its own uuid / entry id, else `line-<n>`). The store and the planner both build
 * records here, so a planning pass sees exactly what a load of the written file will see.
 */
import type { SessionSummary } from "../../model/opencode-records.js";
import type { RecordRef } from "../../model/record.js";
import type { TranscriptDialect, TranscriptLine, TranscriptRecords } from "../../model/transcript.js";
import { obj, str } from "./dialect.js";
import { dialectNamed } from "./format.js";
import { readLine, splitLines } from "./read-lines.js";

export interface TranscriptFile {
  path: string;
  sessionId: string;
  dialect: TranscriptDialect;
  /** Modification time, epoch ms. */
  mtime: number;
  created?: number;
}

export function assembleTranscript(bytes: Buffer, file: TranscriptFile, keepBytes: boolean): TranscriptRecords {
  const { lines: raws, endsWithNewline } = dialectNamed(file.dialect).oneDocument?.(file.path) ? wholeDocument(bytes) : splitLines(bytes);
  const lines = raws.map((raw, i) => lineRecord(raw, i + 1, file));
  return recordsOf(lines, endsWithNewline, file, keepBytes ? bytes : undefined);
}

/** A file that is one document: one "line", its final newline (if any) kept as the file's own. */
function wholeDocument(bytes: Buffer): { lines: Buffer[]; endsWithNewline: boolean } {
  const endsWithNewline = bytes.at(-1) === 0x0a;
  return { lines: bytes.length === 0 ? [] : [endsWithNewline ? bytes.subarray(0, -1) : bytes], endsWithNewline };
}

/** One line as a record: read, interpreted, named. Ids are made unique later (recordsOf). */
export function lineRecord(raw: Buffer, number: number, file: Pick<TranscriptFile, "path" | "sessionId" | "dialect">): TranscriptLine {
  const dialect = dialectNamed(file.dialect);
  const read = readLine(raw, number, (v) => dialect.interpret(v).role !== "unknown");
  // A torn header (the dialect knows what one is): its whole fields are the file's own, and kept.
  const header = !read.value && !read.salvage?.length && read.problem?.kind === "unreadable" ? dialect.salvageHeader?.(raw.toString("utf8")) : undefined;
  if (header && read.problem) {
    read.salvage = [header.value];
    read.problem = { ...read.problem, detail: `${read.problem.detail}; ${header.lost}` };
  }
  const value = read.value ?? read.salvage?.at(-1);
  const meaning = value ? dialect.interpret(value) : { role: "unknown" as const };
  // Records run together on one line were appended one after the other: the chain enters at the first.
  const entry = !read.value && read.salvage && read.salvage.length > 1 ? dialect.interpret(read.salvage[0]!) : undefined;
  if (entry?.parent !== undefined) meaning.parent = entry.parent;
  const ref: TranscriptLine["ref"] = { kind: "line", id: `line-${number}`, sessionId: file.sessionId, path: file.path, line: number };
  const line: TranscriptLine = { ref, raw, role: meaning.role };
  if (value) line.value = value;
  if (read.problem) line.problem = read.problem;
  if (read.salvage) line.salvage = read.salvage;
  if (read.corruption) line.corruption = read.corruption;
  if (header) line.losesSession = true;
  if (meaning.uuid !== undefined) line.uuid = meaning.uuid;
  if (meaning.parent !== undefined) line.parent = meaning.parent;
  if (meaning.sidechain) line.sidechain = true;
  if (meaning.time !== undefined) line.time = meaning.time;
  return line;
}

/** `keepIds`: the lines already carry their ids (a planning pass keeps each line's id from the load). */
export function recordsOf(
  lines: TranscriptLine[],
  endsWithNewline: boolean,
  file: TranscriptFile,
  bytes?: Buffer,
  { keepIds = false } = {},
): TranscriptRecords {
  const seen = new Set<string>();
  for (const line of keepIds ? [] : lines) {
    // A reused uuid (Claude Code's saved_hook_context does it) names the first line only.
    if (line.uuid !== undefined && !seen.has(line.uuid)) {
      seen.add(line.uuid);
      line.ref.id = line.uuid;
    }
  }
  const sessionRef: RecordRef = { kind: "session", id: file.sessionId, sessionId: file.sessionId, path: file.path };
  const summary = summaryOf(lines, file);
  const records: TranscriptRecords = {
    family: "transcript",
    dialect: file.dialect,
    summary,
    sessionRef,
    lines,
    endsWithNewline,
    lastActivity: summary.updated,
  };
  if (bytes) records.bytes = bytes;
  return records;
}

function summaryOf(lines: readonly TranscriptLine[], file: TranscriptFile): SessionSummary {
  const dialect = dialectNamed(file.dialect);
  const directoryOf = dialect.directoryOf ?? ((value: Record<string, unknown>) => str(value.cwd));
  const promptOf = dialect.promptOf ?? promptText;
  let title: string | undefined;
  let sideTitle: string | undefined;
  let named: string | undefined;
  let directory = "";
  let first: number | undefined;
  let last: number | undefined;
  let messages = 0;
  for (const line of lines) {
    const value = line.value;
    if (!value) continue;
    if (line.role === "message") messages++;
    if (first === undefined && line.time !== undefined) first = line.time;
    if (line.time !== undefined && (last === undefined || line.time > last)) last = line.time;
    if (!directory) directory = directoryOf(value) ?? "";
    if (value.type === "custom-title" || value.type === "ai-title") named = str(value.customTitle) ?? str(value.title) ?? str(value.aiTitle) ?? named;
    if (value.type === "session_info") named = str(value.name) ?? named;
    if (title === undefined && (line.role === "message" || line.role === "structure") && !line.sidechain) title = promptOf(value);
    // A subagent's own transcript is all sidechain: its first prompt names it.
    if (sideTitle === undefined && line.role === "message" && line.sidechain) sideTitle = promptOf(value);
  }
  title ??= sideTitle;
  return {
    id: file.sessionId,
    title: (named ?? title ?? "").replace(/\s+/g, " ").trim().slice(0, 80),
    directory,
    created: file.created ?? first ?? file.mtime,
    updated: last ?? file.mtime,
    modified: file.mtime,
    messages,
  };
}

/** The first words a person typed: a user message's text (not a tool result, not injected context). */
function promptText(value: Record<string, unknown>): string | undefined {
  if (value.isMeta === true) return undefined;
  const message = obj(value.message);
  if (message?.role !== "user") return undefined;
  const content = message.content;
  if (typeof content === "string") return content.startsWith("<") ? undefined : content;
  if (!Array.isArray(content)) return undefined;
  for (const item of content) {
    const block = obj(item);
    if (block?.type === "text" && typeof block.text === "string" && !block.text.startsWith("<")) return block.text;
  }
  return undefined;
}
