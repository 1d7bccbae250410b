/**
 * The records view of a JSONL transcript (Claude Code, openclaw/pi): one record per line, linked into a tree by
 * `uuid`/`parentUuid` (Claude Code) or `id`/`parentId` (pi). A line keeps its exact bytes, so a line no fix
 * touches is written back byte for byte; `value` is the object as parsed, never a normalised copy.
 */
import type { Corruption, RecordProblem, RecordRef } from "./record.js";
import type { SessionSummary } from "./opencode-records.js";

/** A transcript format's name (`claude`, `openclaw`): each store adapter of the family brings its own. */
export type TranscriptDialect = string;

/** What a line is, as far as the conversation goes. */
export type LineRole =
  /** pi's `session` header (first line). */
  | "header"
  /** A message the request is built from (user / assistant / tool result). */
  | "message"
  /** A record that shapes the history without being a message (compaction boundary, pi compaction/branch summary). */
  | "structure"
  /** Metadata the agent keeps beside the conversation (snapshots, titles, summaries, settings): kept verbatim. */
  | "meta"
  /** Valid JSON of a type this version of recover does not know: kept verbatim. */
  | "unknown";

/** Why a line cannot be read as one record; `concatenated` and the rest of RecordProblem's reasons. */
export type LineProblem = RecordProblem | { kind: "unreadable"; reason: "concatenated"; detail: string };

export interface TranscriptLine {
  /** kind "line"; `id` is the record's own id (uuid / entry id) when it has a unique one, else `line-<n>`. */
  ref: RecordRef & { line: number };
  /** The line's bytes without its "\n" (a "\r" before it stays: CRLF files round-trip). */
  raw: Buffer;
  value?: Record<string, unknown>;
  problem?: LineProblem;
  /** Records recovered from a damaged line (a concatenation split apart; NULs or invalid bytes dropped). */
  salvage?: Record<string, unknown>[];
  corruption?: Corruption;
  /** The damage costs the whole session (a torn header the client cannot read the file without): never a mere warning. */
  losesSession?: true;
  role: LineRole;
  /** The record's own id (`uuid` / `id`), when it has one. */
  uuid?: string;
  /** `parentUuid` / `parentId`; null: a root. */
  parent?: string | null;
  /** Claude Code subagent records (`isSidechain: true`) are not part of the main conversation. */
  sidechain?: boolean;
  /** Epoch ms of the record's `timestamp`, when it has one. */
  time?: number;
  /**
   * What the store keeps about this record beside it (derived rows, indexes, pointers) disagrees with it, in words:
   * the record is right, its bookkeeping is not. Writing the record anew, unchanged, has the store derive it again
   * (`fixable`), unless the store cannot tell what the bookkeeping must say.
   */
  stale?: { detail: string; fixable: boolean; index?: IndexRow };
}

export interface TranscriptRecords {
  family: "transcript";
  dialect: TranscriptDialect;
  summary: SessionSummary;
  sessionRef: RecordRef;
  /** Every line in file order (a last line without "\n" included). */
  lines: TranscriptLine[];
  /** The file ends with "\n" (Claude Code and pi always append one; a torn tail does not). */
  endsWithNewline: boolean;
  /**
   * When the agent last wrote: the newest record timestamp (a running agent stamps every line with the time), else
   * the file's modification time. A copied or checked-out file keeps its conversation's time this way.
   */
  lastActivity: number;
  /** The file's bytes, when loaded for a fix (the before-image the plan is checked against). */
  bytes?: Buffer;
  /** A plan removes the file whole (Edit `discard-file`): after it, nothing of the session is read. */
  discarded?: true;
  /**
   * Other files the agent keeps for this session that it reads no session from (a Gemini CLI resume's stub), each
   * with why: at its next start it deletes them, and the session's own file with them.
   */
  companions?: Companion[];
}

/** A file of a session besides its own (TranscriptRecords.companions). */
export interface Companion {
  path: string;
  bytes: Buffer;
  /** Why its agent reads no session from it ("nothing resumable in it"). */
  readsNoSession: string;
}

export function isTranscript(loaded: object): loaded is TranscriptRecords {
  return (loaded as { family?: unknown }).family === "transcript";
}

/** Where a content block of a line lives, as a finding names it: `<line id>#<block index>`. */
export function blockId(lineId: string, index: number): string {
  return `${lineId}#${index}`;
}

export function parseBlockId(id: string | undefined): { lineId: string; index: number } | undefined {
  if (id === undefined) return undefined;
  const hash = id.lastIndexOf("#");
  if (hash < 0) return undefined;
  const index = Number(id.slice(hash + 1));
  return Number.isInteger(index) && index >= 0 ? { lineId: id.slice(0, hash), index } : undefined;
}

/** The content array of a message line (Claude Code and pi both keep it at `message.content`). */
export function contentOf(value: Record<string, unknown> | undefined): unknown {
  const message = value?.message;
  if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  // pi's toolResult: the message is the block.
  if (m.role === "toolResult") return undefined;
  return m.content;
}

/**
 * A row of the agent's own index beside its transcripts that disagrees with the session's files (Codex's
 * `threads.rollout_path`), and what it must hold: the columns recover writes, before and after. Its store's writer
 * reads and writes it (TranscriptLayout.indexRows).
 */
export interface IndexRow {
  /** The index's file (a SQLite database). */
  path: string;
  /** The row's id (the session's). */
  id: string;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}
