/**
 * The records a Gemini CLI 0.61 chat file holds once its lines are applied in order, as the client's loader
 * (`loadConversationRecord`) applies them (docs/research/gemini-request.md): a message record appended again
 * replaces the earlier copy and keeps its place, `$set.messages` replaces the whole list, `$rewindTo` drops that
 * record and everything after it (an id not in the list clears it). Lines that do not parse are skipped. A legacy
 * `.json` session is one document holding the list (`messages`).
 */
import type { TranscriptLine } from "../../model/transcript.js";
import { type Json, obj, str } from "../transcript/dialect.js";

export const MESSAGE_TYPES = new Set(["user", "gemini", "info", "error", "warning"]);

/** A record and where it sits: its line, and the path of the record inside the line's value ("" for the whole line). */
export interface PlacedRecord {
  id: string;
  record: Json;
  line: TranscriptLine;
  path: string;
}

export function isMessageRecord(value: Json | undefined): value is Json {
  return value !== undefined && typeof value.id === "string" && typeof value.type === "string" && MESSAGE_TYPES.has(value.type);
}

/** The effective records, in the client's order. */
export function effectiveRecords(lines: readonly TranscriptLine[]): PlacedRecord[] {
  const list = new Map<string, PlacedRecord>();
  for (const line of lines) {
    const value = line.value;
    if (!value || line.problem) continue;
    const rewind = str(value.$rewindTo);
    if (rewind !== undefined) {
      rewindTo(list, rewind);
      continue;
    }
    // A legacy `.json` session: the whole file is one document holding the list.
    if (typeof value.sessionId === "string" && Array.isArray(value.messages)) {
      list.clear();
      value.messages.forEach((entry, k) => {
        const record = obj(entry);
        if (isMessageRecord(record)) list.set(record.id as string, { id: record.id as string, record, line, path: `messages.${k}` });
      });
      continue;
    }
    const set = obj(value.$set);
    if (set) {
      if (Array.isArray(set.messages)) {
        list.clear();
        set.messages.forEach((entry, k) => {
          const record = obj(entry);
          if (isMessageRecord(record)) list.set(record.id as string, { id: record.id as string, record, line, path: `$set.messages.${k}` });
        });
      }
      continue;
    }
    if (isMessageRecord(value)) list.set(value.id as string, { id: value.id as string, record: value, line, path: "" });
  }
  return [...list.values()];
}

/** Drops record `id` and every record after it; an id the list does not hold clears it (the client's rewindTo). */
function rewindTo(list: Map<string, PlacedRecord>, id: string): void {
  if (!list.has(id)) {
    list.clear();
    return;
  }
  let cutting = false;
  for (const key of [...list.keys()]) {
    if (key === id) cutting = true;
    if (cutting) list.delete(key);
  }
}

/** Whether `id` names a record the list holds right before line `at` (what a `$rewindTo` there would find). */
export function holdsBefore(lines: readonly TranscriptLine[], at: TranscriptLine, id: string): boolean {
  const before = lines.slice(0, lines.indexOf(at));
  return effectiveRecords(before).some((r) => r.id === id);
}

/** A field path inside a line's value: `prefix` + `rest`, dot-joined ("" prefix: the line's own fields). */
export function fieldPath(prefix: string, rest: string): string {
  return prefix === "" ? rest : `${prefix}.${rest}`;
}
