/**
 * The records view of an opencode session: Session → Message → Part as the store keeps them.
 *
 * A record keeps the value exactly as parsed from storage (`value`, never zod's normalised copy), so a fix edits
 * the original and untouched records are never rewritten. Heavy strings (tool outputs, long texts, data URLs)
 * are also summarised in `content`, which is exact in every load mode: a lean scan load lets SQLite measure
 * large fields and leaves placeholders in `value`, so rules must read sizes and damage from `content`.
 */
import type { MessageInfo, Part, SessionInfo } from "./opencode.js";
import type { Corruption, RecordProblem, RecordRef } from "./record.js";

export type LoadMode = "lean" | "full";

export interface PartContent {
  /** Code points of `text` (text and reasoning parts). */
  textChars?: number;
  textBlank?: boolean;
  /** Length of the tool input as JSON. */
  inputChars?: number;
  /** Code points of a completed tool's `state.output`. */
  outputChars?: number;
  /** Code points of an errored tool's `state.error`. */
  errorChars?: number;
  /** Partial output an interrupted tool kept in `state.metadata.output`. */
  metadataOutputChars?: number;
  /** Length of a file part's URL (a data: URL holds the whole file). */
  urlChars?: number;
  corruption?: Corruption;
}

export interface PartRecord {
  ref: RecordRef;
  /** Parsed and schema-valid; absent when `problem` says why. */
  part?: Part;
  problem?: RecordProblem;
  content: PartContent;
  /** Lean loads of large rows: heavy fields in `part` are type-correct placeholders; read `content` instead. */
  placeholders?: true;
  /** Full loads only: the object as parsed from storage, and the stored bytes. */
  original?: Record<string, unknown>;
  raw?: Buffer;
}

export interface MessageRecord {
  ref: RecordRef;
  info?: MessageInfo;
  problem?: RecordProblem;
  /** Epoch ms used for ordering: `time.created`, else the store's own timestamp. */
  created: number;
  parts: PartRecord[];
  original?: Record<string, unknown>;
  raw?: Buffer;
}

export interface SessionSummary {
  id: string;
  title: string;
  directory: string;
  created: number;
  updated: number;
  messages: number;
  parentId?: string;
}

export interface SessionRecords {
  summary: SessionSummary;
  info?: SessionInfo;
  /** Problem with the session record itself (JSON tree: its file). */
  problem?: RecordProblem;
  /** Messages or parts name this session, but it has no session record (row or file). */
  missingSessionRecord?: true;
  sessionRef: RecordRef;
  /** Ordered by (time.created, id); parts by id within a message. */
  messages: MessageRecord[];
  /** Parts that name this session but whose message does not exist. */
  orphanParts: PartRecord[];
  /** Latest time anything in the session was written, epoch ms. */
  lastActivity: number;
}
