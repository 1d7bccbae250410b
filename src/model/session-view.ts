/**
 * Everything a rule may look at for one session: the store's records, the conversation built from them, and the
 * few facts computed once per session so that no rule rescans for them.
 */
import type { Block, Conversation } from "./conversation.js";
import type { SessionRecords, SessionSummary } from "./opencode-records.js";
import type { TranscriptLine, TranscriptRecords } from "./transcript.js";

/** A transcript line whose content is sent, with the blocks it contributes. */
export interface SentEntry {
  line: TranscriptLine;
  role: "user" | "assistant";
  blocks: Block[];
}

/** A transcript's records and its active history (stores/transcript/history.ts). */
export interface TranscriptHistory {
  records: TranscriptRecords;
  /** Lines by their record id (uuid / entry id / `line-<n>`). */
  byId: ReadonlyMap<string, TranscriptLine>;
  /** Lines by the uuid / entry id they hold (a damaged line also by the ids of what it holds). */
  byUuid: ReadonlyMap<string, TranscriptLine>;
  /** The active chain, root to leaf. */
  chain: TranscriptLine[];
  /** The chain line whose parent is missing: the walk from the leaf stopped there, so the history before is lost. */
  brokenAt?: TranscriptLine;
  /** The lines whose content is sent, in request order, with their blocks. */
  sent: SentEntry[];
  conversation: Conversation;
  /**
   * The stored replies the client would name to the API as the previous response (Claude Code:
   * `diagnostics.previous_message_id`) before it reaches one with an id of the API: the latest first, each one it
   * would name once the one before no longer counts. Absent: the client names none, or its choice is an API id.
   */
  namedReplies?: NamedReply[];
}

/** The API a session's client sends its history to, whose rules judge it. */
export type ProviderApi = "anthropic" | "responses" | "gemini";

/** The `copes` clauses a client can mend on every request (see `mendsEveryTime`). */
export type MendedEveryTime = "missingResult" | "orphanResult" | "loneSurrogate" | "duplicateCallId";

/** What the client mends itself when it resumes, as clauses for findings (a Dialect's `copes`). */
export interface ClientCopes {
  /** A tool call with no result. */
  missingResult?: string;
  /** A result that answers no call. */
  orphanResult?: string;
  /** A line that does not parse. */
  unreadableLine?: string;
  /** A lone UTF-16 surrogate in a string it sends (the body would not parse at the API). */
  loneSurrogate?: string;
  /** A model turn with nothing to send. */
  emptyTurn?: string;
  /** A tool call whose id is empty (openclaw drops the call, and the result that carries the same empty id). */
  emptyCallId?: string;
  /** A tool call reusing an earlier call's id (openclaw 2026.9 gives it and its result an id of their own). */
  duplicateCallId?: string;
  /** A second result for a call already answered (openclaw drops it). */
  secondResult?: string;
  /**
   * The clauses above whose damage the client mends every time it sends the history, writing nothing back, where
   * mending it on disk would change what is sent (openclaw 2026.9's "No result provided"; Claude Code's "(no content)"
   * and U+FFFD): recover leaves them as they are, a warning with no fix. A clause not listed is still fixed on disk.
   */
  mendsEveryTime?: readonly MendedEveryTime[];
  /** The client scales every history image to fit this many pixels a side before it sends it (openclaw 2026.9: 1,200). */
  imagesFitTo?: number;
}

export interface SessionView {
  summary: SessionSummary;
  /** The API the history goes to; absent: the Anthropic Messages API (opencode, Claude Code, openclaw as modelled). */
  api?: ProviderApi;
  /** What the client fixes on its own at resume: findings about it are warnings. */
  copes?: ClientCopes;
  /** The provider's error answers the client stored in the session, newest last, with the line or message holding each. */
  storedErrors?: { messageId: string; where: string; text: string }[];
  conversation: Conversation;
  /** opencode's records (absent for other store families). */
  opencode?: SessionRecords;
  /** A JSONL transcript's records and history (Claude Code, openclaw). */
  transcript?: TranscriptHistory;
  /** The last message, when it is an assistant turn still being written (so it is not damage). */
  liveTailMessageId?: string;
  /**
   * Messages with an unreadable or invalid record (their own or a part's). What is sent for them is unknowable,
   * so rules about the sent shape leave them to unreadable-record / schema-violation: one defect, one finding.
   */
  damagedMessageIds: ReadonlySet<string>;
  /** Estimated tokens of what would be sent (see model/tokens.ts). */
  estimatedTokens: number;
  /** The real prompt size the provider reported for the latest reply that has one, as the agent stored it. */
  measuredPrompt?: MeasuredPrompt;
}

/** A stored reply the client names to the API by its id (`TranscriptHistory.namedReplies`). */
export interface NamedReply {
  /** The line's record id. */
  messageId: string;
  /** The id the client would send. */
  id: string;
  /** The line's fields that make the client count it as an API reply: without them it passes over the line. */
  marks: string[];
}

/** A prompt size the provider counted: what the estimate is calibrated against. */
export interface MeasuredPrompt {
  /** The stored message (or line) that carries it: the prompt is everything sent up to and including it. */
  messageId: string;
  tokens: number;
  /** Who counted it, for the output ("opencode stored"): input + cache read + cache write of that reply's usage. */
  source: string;
}

/** What building a view needs from the rule options: the time and the live window. */
export interface ViewOptions {
  now: number;
  liveWindowMs: number;
}

/** Written within the live window. A window of 0 (`--include-live`) makes nothing live, even a clock ahead of ours. */
export function isRecent(lastActivity: number, options: ViewOptions): boolean {
  return options.liveWindowMs > 0 && options.now - lastActivity < options.liveWindowMs;
}
