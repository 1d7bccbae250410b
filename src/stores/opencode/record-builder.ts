/**
 * Build opencode records from stored bytes. Both opencode stores (SQLite rows, JSON files) go through here, so a
 * record means the same thing whichever format it came from.
 */
import { MessageInfo, validatePart, type Part } from "../../model/opencode.js";
import type { MessageRecord, PartRecord, SessionRecords, SessionSummary } from "../../model/opencode-records.js";
import type { RecordProblem, RecordRef } from "../../model/record.js";
import { decodeJson } from "../decode-json.js";
import { compareMessages, comparePartKeys, unwrappedIdTime } from "./ids.js";
import { partContent } from "./part-content.js";

/** Stored JSON keeps ids in columns (SQLite) or repeats them (JSON tree); they are never part of what is validated. */
function schemaProblem(issues: { path: PropertyKey[]; message: string }[]): RecordProblem {
  const first = issues[0];
  const where = first && first.path.length > 0 ? first.path.map(String).join(".") : "(record)";
  return { kind: "schema", detail: `${where}: ${first?.message ?? "invalid"}` };
}

export function partFromBytes(ref: RecordRef, bytes: Buffer | string, keepBytes: boolean): PartRecord {
  const decoded = decodeJson(bytes);
  if (!decoded.ok) return { ref, problem: decoded.problem, content: {}, ...(keepBytes && Buffer.isBuffer(bytes) ? { raw: bytes } : {}) };
  const record: PartRecord = withValidatedPart({ ref, content: partContent(decoded.value, decoded.invalidUtf8) }, decoded.value);
  if (keepBytes) {
    record.original = decoded.value;
    if (Buffer.isBuffer(bytes)) record.raw = bytes;
  } else if (record.part && decoded.text.length > HEAVY_CHARS && dropHeavyStrings(decoded.value)) {
    record.stripped = true;
  }
  return record;
}

/** Strings longer than this are measured into `content` and then dropped from lean records. */
const HEAVY_CHARS = 1024;
const HEAVY_PATHS: ReadonlyArray<readonly string[]> = [
  ["text"],
  ["url"],
  ["state", "output"],
  ["state", "error"],
  ["state", "raw"],
  ["state", "metadata", "output"],
  ["state", "metadata", "diff"],
  ["state", "metadata", "preview"],
];
/** Objects whose long string members are dropped the same way (a `write` input holds a whole file). */
const HEAVY_OBJECTS: ReadonlyArray<readonly string[]> = [
  ["state", "input"],
  ["state", "metadata", "filediff"],
];

function at(value: Record<string, unknown>, path: readonly string[]): Record<string, unknown> | undefined {
  let node: unknown = value;
  for (const key of path) node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  return node !== null && typeof node === "object" && !Array.isArray(node) ? (node as Record<string, unknown>) : undefined;
}

function emptyLongString(holder: Record<string, unknown> | undefined, key: string): boolean {
  const current = holder?.[key];
  if (typeof current !== "string" || current.length <= HEAVY_CHARS) return false;
  holder![key] = "";
  return true;
}

/**
 * A lean (scan) load keeps sizes, not contents: a session's tool outputs can run to hundreds of megabytes, and
 * holding them until the session is checked made the garbage collector copy them over and over. Schema
 * validation and measurement have already seen the real values. Returns whether anything was dropped.
 */
function dropHeavyStrings(value: Record<string, unknown>): boolean {
  let dropped = false;
  for (const path of HEAVY_PATHS) if (emptyLongString(at(value, path.slice(0, -1)), path[path.length - 1]!)) dropped = true;
  for (const path of HEAVY_OBJECTS) {
    const holder = at(value, path);
    for (const key in holder) if (emptyLongString(holder, key)) dropped = true;
  }
  return dropped;
}

function withValidatedPart(record: PartRecord, value: Record<string, unknown>): PartRecord {
  const result = validatePart(value);
  if (result.success) record.part = value as Part;
  else record.problem = schemaProblem(result.error.issues);
  return record;
}

export function messageFromBytes(ref: RecordRef, bytes: Buffer | string, fallbackCreated: number, keepBytes: boolean): MessageRecord {
  const decoded = decodeJson(bytes);
  const record: MessageRecord = { ref, created: fallbackCreated, parts: [] };
  if (keepBytes && Buffer.isBuffer(bytes)) record.raw = bytes;
  if (!decoded.ok) {
    record.problem = decoded.problem;
    return record;
  }
  if (keepBytes) record.original = decoded.value;
  const result = MessageInfo.safeParse(decoded.value);
  if (result.success) {
    record.info = decoded.value as MessageInfo;
    record.created = record.info.time.created;
  } else {
    record.problem = schemaProblem(result.error.issues);
    const created = (decoded.value.time as { created?: unknown } | undefined)?.created;
    if (typeof created === "number") record.created = created;
  }
  if (decoded.invalidUtf8 && !record.problem) {
    record.problem = { kind: "unreadable", reason: "invalid-utf8", detail: `invalid UTF-8 at byte ${decoded.invalidUtf8.offset}` };
  }
  return record;
}

/** Sort by each id's unwrapped time, computed once per part rather than once per comparison. */
function sortParts(parts: PartRecord[], messageCreated: number): PartRecord[] {
  if (parts.length < 2) return parts;
  return parts
    .map((part) => ({ part, time: unwrappedIdTime(part.ref.id, messageCreated) }))
    .sort((a, b) => comparePartKeys(a.part.ref.id, a.time, b.part.ref.id, b.time))
    .map((x) => x.part);
}

/** Put parts under their messages, order everything, and keep parts without a message as orphans. */
export function assembleSession(
  summary: SessionSummary,
  sessionRef: RecordRef,
  messages: MessageRecord[],
  parts: PartRecord[],
  lastActivity: number,
  session: { problem?: RecordProblem; missing?: boolean } = {},
): SessionRecords {
  messages.sort(compareMessages);
  const byId = new Map(messages.map((m) => [m.ref.id, m]));
  const orphanParts: PartRecord[] = [];
  for (const part of parts) {
    const message = part.ref.messageId === undefined ? undefined : byId.get(part.ref.messageId);
    if (message) message.parts.push(part);
    else orphanParts.push(part);
  }
  for (const message of messages) message.parts = sortParts(message.parts, message.created);
  return {
    summary,
    sessionRef,
    messages,
    orphanParts,
    lastActivity,
    ...(session.problem ? { problem: session.problem } : {}),
    ...(session.missing ? { missingSessionRecord: true as const } : {}),
  };
}
