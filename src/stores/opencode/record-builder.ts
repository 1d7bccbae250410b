/**
 * Build opencode records from stored bytes. Both opencode stores (SQLite rows, JSON files) go through here, so a
 * record means the same thing whichever format it came from.
 */
import { type MessageInfo, type Part, validateMessageInfo, validatePart } from "../../model/opencode.js";
import type { MessageRecord, PartRecord, SessionRecords, SessionSummary } from "../../model/opencode-records.js";
import type { RecordProblem, RecordRef } from "../../model/record.js";
import { decodeJson } from "../decode-json.js";
import { compareMessages, comparePartKeys, unwrappedIdTime } from "./ids.js";
import { dropHeavyStrings, HEAVY_CHARS } from "./lean.js";
import { partContent } from "./part-content.js";

/** The first zod issue as a one-line detail, with the field path it is about. */
function schemaProblem(issues: { path: PropertyKey[]; message: string }[]): RecordProblem {
  const first = issues[0];
  const where = first && first.path.length > 0 ? first.path.map(String).join(".") : "(record)";
  return { kind: "schema", detail: `${where}: ${first?.message ?? "invalid"}` };
}

export function partFromBytes(ref: RecordRef, bytes: Parameters<typeof decodeJson>[0], keepBytes: boolean): PartRecord {
  const decoded = decodeJson(bytes);
  if (!decoded.ok) return { ref, problem: decoded.problem, content: {}, ...(keepBytes && Buffer.isBuffer(bytes) ? { raw: bytes } : {}) };
  const record: PartRecord = withValidatedPart({ ref, content: partContent(decoded.value, decoded.invalidUtf8, decoded.text) }, decoded.value);
  if (keepBytes) {
    record.original = decoded.value;
    if (Buffer.isBuffer(bytes)) record.raw = bytes;
  } else if (record.part && decoded.text.length > HEAVY_CHARS && dropHeavyStrings(decoded.value)) {
    record.stripped = true;
  }
  return record;
}

function withValidatedPart(record: PartRecord, value: Record<string, unknown>): PartRecord {
  const result = validatePart(value);
  if (result.success) record.part = value as Part;
  else record.problem = schemaProblem(result.error.issues);
  return record;
}

export function messageFromBytes(ref: RecordRef, bytes: Parameters<typeof decodeJson>[0], fallbackCreated: number, keepBytes: boolean): MessageRecord {
  const decoded = decodeJson(bytes);
  const record: MessageRecord = { ref, created: fallbackCreated, parts: [] };
  if (keepBytes && Buffer.isBuffer(bytes)) record.raw = bytes;
  if (!decoded.ok) {
    record.problem = decoded.problem;
    return record;
  }
  if (keepBytes) record.original = decoded.value;
  const result = validateMessageInfo(decoded.value);
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
