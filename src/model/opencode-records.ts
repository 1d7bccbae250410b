/**
 * The records view of an opencode session: Session → Message → Part as the store keeps them.
 *
 * A record keeps the value exactly as parsed from storage (`value`, never zod's normalised copy), so a fix edits
 * the original and untouched records are never rewritten. Sizes and damage of the heavy strings (tool outputs,
 * long texts, data URLs) are measured once at load into `content`, so rules never rescan them.
 */
import type { MessageInfo, Part, SessionInfo } from "./opencode.js";
import type { Corruption, RecordProblem, RecordRef } from "./record.js";

/** `lean`: what a scan needs (parsed records). `full`: also the stored bytes and objects a fix works from. */
export type LoadMode = "lean" | "full";

export interface PartContent {
  /** Sizes are string lengths (UTF-16 code units), as JavaScript and opencode's own estimate count them. */
  /** Length of `text` (text and reasoning parts). */
  textChars?: number;
  textBlank?: boolean;
  /** Length of the tool input as JSON. */
  inputChars?: number;
  /** Length of a completed tool's `state.output`. */
  outputChars?: number;
  /** Length of an errored tool's `state.error`. */
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
  /** Lean loads: long strings were measured into `content`, then emptied in `part` (rules read `content`). */
  stripped?: true;
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
  /** When its file was last written, by anyone (transcripts: an agent may append records without a timestamp). */
  modified?: number;
}

/**
 * What a store knows, beyond the messages, of a session whose record is missing: what a recreated record must name
 * for opencode to list it again (opencode lists a project's sessions, found by the project id).
 */
export interface SessionHome {
  projectID: string;
  /** The project's worktree, when the store holds that project. */
  worktree?: string;
  /** The opencode version a session record names: that of the store's newest session. */
  version: string;
  /** How the project was found, one phrase for the repair's reason. */
  found: string;
}

export interface SessionRecords {
  summary: SessionSummary;
  info?: SessionInfo;
  /** Problem with the session record itself (JSON tree: its file). */
  problem?: RecordProblem;
  /** Messages or parts name this session, but it has no session record (row or file). */
  missingSessionRecord?: true;
  /** With `missingSessionRecord`: where the store would file a recreated session record. */
  home?: SessionHome;
  /**
   * JSON tree: messages whose file is also filed under other sessions (message id → those session ids). Their parts
   * live once, under part/<message id>/, so both sessions read them: no repair of one may change them.
   */
  sharedMessages?: Record<string, string[]>;
  sessionRef: RecordRef;
  /** Ordered by (time.created, id); parts by id within a message. */
  messages: MessageRecord[];
  /** Parts that name this session but whose message does not exist. */
  orphanParts: PartRecord[];
  /** Latest time anything in the session was written, epoch ms. */
  lastActivity: number;
}

export interface ReadablePart {
  record: PartRecord;
  part: Part;
}

/**
 * The parts of a message that parsed and validated, in order. Computed on every call, on purpose: a cache of them in
 * a module-level WeakMap kept every session a scan read alive through V8's young-generation collections (the heap
 * left after each one grew session by session, until a full collection), which cost a scan of 2,000 sessions 0.9 s
 * of CPU. Building a few short-lived arrays again costs next to nothing (docs/performance.md).
 */
export function readableParts(message: MessageRecord): ReadablePart[] {
  const found: ReadablePart[] = [];
  for (const record of message.parts) if (record.part) found.push({ record, part: record.part });
  return found;
}
