/**
 * What differs between the two transcript formats, behind one interface: which records a line holds, how they
 * link, and which content blocks a message line sends. Everything else (reading lines, the active chain, the
 * conversation, writing) is shared.
 */
import type { Block, ConversationMessage, MediaItem, SkippedMessage, WithheldMedium } from "../../model/conversation.js";
import type { LineRole, TranscriptDialect, TranscriptLine } from "../../model/transcript.js";
import { blockId } from "../../model/transcript.js";
import { isBlank, jsonLength } from "../opencode/part-content.js";
import type { Json } from "../../model/edit.js";
import type { ClientCopes, NamedReply, ProviderApi, SentEntry } from "../../model/session-view.js";

export interface Interpretation {
  role: LineRole;
  uuid?: string;
  parent?: string | null;
  sidechain?: boolean;
  time?: number;
}

/**
 * What a line sends: blocks of a message of its role, or (an attachment) blocks that lead the user message its run
 * of user lines forms, with messages of their own before it.
 */
export type SentLine = { role: "user" | "assistant"; blocks: Block[]; attachment?: Attachment } | { skip: string };

/** Claude Code's attachment records (docs/research/claude-code-request.md §A). */
export interface Attachment {
  /** User messages sent on their own, right before the message of the run (an `@file`'s "Called the Read tool"). */
  ownMessages: Block[][];
}

export interface Dialect {
  /** The format's name (`--format`, the records' `dialect`). */
  name: TranscriptDialect;
  /** The agent, as sentences name it ("Claude Code"). */
  agent: string;
  /**
   * Bytes that open each message record, so a listing counts messages without parsing (quotes inside JSON strings
   * are escaped, so these only ever appear as record structure).
   */
  messageMarkers: readonly Buffer[];
  /**
   * Whether a file's head (its first bytes, as text) opens with this format's own header. One format has none
   * (Claude Code): a transcript no header claims is that format's.
   */
  sniff?(head: string): boolean;
  /**
   * The file at `path` is one JSON document written whole, not one record per line (Gemini CLI's legacy
   * `session-*.json`): it is read as one line, and written back whole in the same layout (2-space indent).
   */
  oneDocument?(path: string): boolean;
  /**
   * A line cut short that holds the session's header (its metadata, or a whole-file document): what of it survives
   * as the file's own values, and what its loss costs the session, or undefined when nothing of it can be kept.
   */
  salvageHeader?(text: string): { value: Json; lost: string } | undefined;
  /** Field names of the links, as findings and fixes name them. */
  idField: string;
  parentField: string;
  /**
   * The history has no links: the client sends its message lines in file order (Codex). Otherwise it is the chain
   * of parent links from the leaf back to a root.
   */
  linear?: true;
  interpret(value: Record<string, unknown>): Interpretation;
  /**
   * Formats whose records are not one per line (Gemini CLI: a record appended again replaces its earlier copy, a
   * `$set.messages` line holds the whole list): the sent entries, built from every line at once, instead of
   * `sentLines` and `send`. Several entries may come from one line; each block's handle names its path in the line.
   * Undefined: this history is sent line by line after all (Codex without a compaction).
   */
  entries?(lines: readonly TranscriptLine[]): { sent: SentEntry[]; skipped: SkippedMessage[] } | undefined;
  /**
   * What a message line contributes to the request; undefined for lines that are not messages. `session` is what the
   * line's contribution may depend on besides the line (Claude Code: which client reads the session back, and the
   * other lines of the line's response).
   */
  send(line: TranscriptLine, session: SendSession): SentLine | undefined;
  /**
   * The lines a request is built from, in order: the chain, as the agent reads it (pi: a compaction replaces what
   * came before it with its summary; Claude Code: results of parallel calls that sit off the chain join it).
   */
  sentLines(chain: readonly TranscriptLine[], all: readonly TranscriptLine[]): TranscriptLine[];
  /** Lines of one API response share this (Claude Code `message.id`); their blocks form one request message. */
  responseId(line: TranscriptLine): string | undefined;
  /**
   * Each response is its own assistant message, even right after another one (Claude Code sends two assistant
   * messages in a row as they are); otherwise assistant lines in a row merge.
   */
  responsesApart?: true;
  /**
   * The prompt size the provider reported for the response on this line, as the agent stores it (on the line, or on
   * an event line after it: `lines` is the file).
   */
  promptTokens(line: TranscriptLine, lines: readonly TranscriptLine[]): { tokens: number; source: string } | undefined;
  /**
   * For listings, when the format keeps them elsewhere than Claude Code and pi (`cwd` on a record, the prompt in
   * `message.content`): the directory a record names, and the words a person typed in a message record.
   */
  directoryOf?(value: Json): string | undefined;
  promptOf?(value: Json): string | undefined;
  /**
   * The replies the client would name to the API by id, from the chain's end back to the first one with an API id
   * (Claude Code: `diagnostics.previous_message_id`); see `TranscriptHistory.namedReplies`.
   */
  namedReplies?(chain: readonly TranscriptLine[]): NamedReply[];
  /** The provider's error answers the client stored among the lines (Codex: `task_complete.error`). */
  storedErrors?(lines: readonly TranscriptLine[]): { messageId: string; where: string; text: string }[];
  /**
   * Where a session names the version of the client that wrote it, and how a record names it: `first`, the first
   * record naming one (Codex: `session_meta.payload.cli_version`, once per rollout); `last`, the newest record naming
   * one (Claude Code stamps `version` on every record, so a session a newer client resumed says so). Absent: the
   * format names none (Gemini CLI; openclaw's header `version` is its line format's, not its client's).
   */
  clientVersion?: { at: "first" | "last"; of(value: Json): string | undefined };
  /** The API the client sends the history to (absent: the Anthropic Messages API). */
  api?: ProviderApi;
  /**
   * What the client mends itself when it resumes ("Codex drops it itself when it resumes"): such damage does not
   * stop the resume, so it is reported as a warning, and still fixed on disk.
   */
  copes?: ClientCopes;
  /**
   * What the client does to the history after merging it into request messages, before sending it (openclaw: drop
   * empty text, failed turns and the thinking its model policy does not replay). Messages it removes are not merged
   * again: the client leaves their neighbours apart too.
   */
  replay?(
    messages: ConversationMessage[],
    session: ReplaySession,
  ): { messages: ConversationMessage[]; skipped: SkippedMessage[]; withheld?: WithheldMedium[]; rejectedMediaIn?: string[] };
}

/** What `send` may read of the session besides the line. */
export interface SendSession {
  /**
   * The client that will read the session back, as the session names it: the newest record naming a version
   * (`clientVersionIn`), the one that last wrote it. Undefined when the format or the session names none.
   */
  clientVersion: string | undefined;
  /** The lines of the request that belong to response `id` (`Dialect.responseId`), in order. */
  responseLines(id: string): readonly TranscriptLine[];
}

/**
 * The version of the client a session's records name (`Dialect.clientVersion`: the first or the newest record naming
 * one), read from records already parsed; undefined when the format or the session names none.
 */
export function clientVersionIn(lines: readonly TranscriptLine[], dialect: Dialect): string | undefined {
  const named = dialect.clientVersion;
  if (!named) return undefined;
  const count = lines.length;
  for (let k = 0; k < count; k++) {
    const value = lines[named.at === "first" ? k : count - 1 - k]!.value;
    const version = value ? named.of(value) : undefined;
    if (version) return version;
  }
  return undefined;
}

/** What a replay may read of the session besides its messages. */
export interface ReplaySession {
  chain: readonly TranscriptLine[];
  lineOf(id: string): TranscriptLine | undefined;
  /** The client that will read the session back, as `SendSession.clientVersion`. */
  clientVersion?: string | undefined;
}

export type { Json };
export const obj = (v: unknown): Json | undefined => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

export function timeOf(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value !== "string") return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** A record's own id, parent link and time, read from the fields its format names them by. */
export function linksOf(value: Json, role: LineRole, idField: string, parentField: string): Interpretation {
  const found: Interpretation = { role };
  const id = str(value[idField]);
  if (id !== undefined) found.uuid = id;
  const parent = value[parentField];
  if (parent === null || typeof parent === "string") found.parent = parent;
  const time = timeOf(value.timestamp);
  if (time !== undefined) found.time = time;
  return found;
}

/** A handle to block `index` of a line's content (`field` names where it sits in the record). */
export function handle(line: TranscriptLine, index: number, field: string): Block["source"] {
  return {
    kind: "line",
    id: blockId(line.ref.id, index),
    messageId: line.ref.id,
    field,
    ...(line.ref.path ? { path: line.ref.path } : {}),
    line: line.ref.line,
  };
}

export function textBlock(line: TranscriptLine, index: number, field: string, text: string): Block {
  return { type: "text", source: handle(line, index, field), chars: text.length, text, blank: isBlank(text) };
}

/** A tool call as sent: its size counts the name and the input's JSON; the input itself rides along (dedupe reads it). */
export function toolUseBlock(source: Block["source"], block: Json, input: unknown): Block {
  const name = str(block.name) ?? "";
  return { type: "tool_use", source, id: str(block.id) ?? "", name, chars: jsonLength(input) + name.length, input };
}

/** A tool result as sent: its text when all of it is text, and the media inside it. */
export function toolResultBlock(source: Block["source"], toolUseId: unknown, isError: boolean, content: unknown): Block {
  const text = resultText(content);
  const media = resultMedia(content);
  return {
    type: "tool_result",
    source,
    toolUseId: str(toolUseId) ?? "",
    isError,
    chars: resultChars(content),
    ...(text !== undefined ? { text } : {}),
    ...(media ? { media } : {}),
  };
}

/** Size of a tool result's content as sent: text lengths, media by their data. */
export function resultChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return content === undefined ? 0 : jsonLength(content);
  let n = 0;
  for (const item of content) {
    const block = obj(item);
    if (typeof block?.text === "string") n += block.text.length;
    else if (typeof block?.data === "string") n += block.data.length;
    else if (typeof obj(block?.source)?.data === "string") n += (obj(block?.source)!.data as string).length;
    else n += jsonLength(item);
  }
  return n;
}

/**
 * Images and documents inside a tool result's content: Claude Code's `{type: "image", source: {media_type, data}}`,
 * pi's `{type: "image", mimeType, data}`.
 */
export function resultMedia(content: unknown): MediaItem[] | undefined {
  if (!Array.isArray(content)) return undefined;
  const found: MediaItem[] = [];
  content.forEach((item, index) => {
    const block = obj(item);
    if (block?.type !== "image" && block?.type !== "document") return;
    const source = obj(block.source);
    const data = str(source?.data) ?? str(block.data);
    if (data === undefined) return;
    found.push({ index, mime: str(source?.media_type) ?? str(block.mimeType) ?? "application/octet-stream", chars: data.length, data });
  });
  return found.length > 0 ? found : undefined;
}

/** The text of a tool result's content, when it is text. */
export function resultText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.map((c) => obj(c)?.text).filter((t): t is string => typeof t === "string");
  return texts.length === content.length ? texts.join("\n") : undefined;
}

/** A sum of numeric usage fields; none when none of them is a positive number. */
export function usageSum(usage: unknown, fields: readonly string[]): number | undefined {
  const u = obj(usage);
  if (!u) return undefined;
  const total = fields.reduce((n, f) => n + (typeof u[f] === "number" && Number.isFinite(u[f]) ? (u[f] as number) : 0), 0);
  return total > 0 ? total : undefined;
}
