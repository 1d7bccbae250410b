/**
 * The one edit vocabulary of a fix: insert, update or delete a record. A record is a record whatever store holds it
 * (an opencode message or part, a transcript line); edits are data, never writes. The planner applies them to its
 * working copy, re-runs the rules, and only the final difference between the loaded and the fixed session becomes
 * the plan (model/change.ts).
 */
import type { MessageRecord, PartRecord } from "./opencode-records.js";
import type { IndexRow, TranscriptLine } from "./transcript.js";

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A copy of a parsed JSON value a fix may mutate: every object and array is new, strings are shared (they are
 * immutable, and a 3 MB tool output copied for every edit of its record is what made large trims slow).
 */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (value === null || typeof value !== "object") return value;
  const out: Json = {};
  for (const key of Object.keys(value)) out[key] = copyJson((value as Json)[key]);
  return out as T;
}

/** Any stored record a fix may name. */
export type StoredRecord = MessageRecord | PartRecord | TranscriptLine;

export type Edit =
  /**
   * A new record with its id. `into`: the message a new part joins (its place follows from its id); `after`: the
   * record it follows in file order (a transcript line); neither, in a store of records: the session's own record.
   */
  | { op: "insert"; id: string; value: Json; reason: string; into?: MessageRecord; after?: TranscriptLine }
  /**
   * The record's new stored object. `preceding`: a damaged record held several (a concatenation split apart); these
   * are written before `value`, in its place.
   */
  | { op: "update"; target: StoredRecord; value: Json; reason: string; preceding?: Json[] }
  | { op: "delete"; target: StoredRecord; reason: string }
  /**
   * A file of the session goes whole: its own file (`path` absent), or another file its agent keeps for it
   * (TranscriptRecords.companions). For files the agent reads no session from, and would delete with others at its
   * next start. The backup keeps their bytes; a restore puts them back.
   */
  | { op: "discard-file"; path?: string; reason: string }
  /** A row of the agent's own index that names the session, set to what the session's files say (IndexRow). */
  | { op: "set-index"; row: IndexRow; reason: string };
