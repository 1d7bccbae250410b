/**
 * What a rule's fix sees: one context, declared here and implemented by each store family (stores/opencode/fixing.ts,
 * stores/transcript/fixing.ts). A fix states its intent on the records it read (drop this block, remove this
 * thinking, give this call its interrupted result, delete this message); the store turns the intent into edits the
 * way its agent writes them (its placeholder text, its id format, its tree links). The two kinds differ in the shape
 * of their records, not in their edits: both produce model/edit.ts's `Edit`.
 */
import type { Edit, Json } from "./edit.js";
import type { MessageRecord, PartRecord, SessionRecords } from "./opencode-records.js";
import type { RuleOptions } from "./rule-options.js";
import type { SessionView, TranscriptHistory } from "./session-view.js";
import type { TranscriptLine } from "./transcript.js";

/** A block the conversation names, as a finding carries it: its record (`partId`: a part, or `<line id>#<index>`). */
export interface BlockAt {
  messageId?: string;
  partId?: string;
}

/**
 * Context trim's edits (src/rules/trim), the same intent in every store: each names a block of the conversation and
 * the store writes it as its agent would. Whatever they remove stays in the backup.
 */
export interface TrimEdits {
  /** A tool result's content becomes `text` (a truncation keeps its head and tail). */
  rewriteResult(at: BlockAt, rewrite: (text: string) => string, reason: string): Edit[];
  /** Stop sending an old tool result the agent's own way (opencode: marked compacted; a transcript: the cleared text). */
  clearResult(at: BlockAt, reason: string): Edit[];
  /** A tool call's input becomes empty (`{}`). */
  emptyInput(at: BlockAt, reason: string): Edit[];
  /** An image or document gives way to a text note: the block itself, or item `item` of a tool result's content. */
  replaceMedia(at: BlockAt, note: string, reason: string, item?: number): Edit[];
  /** A thinking block goes (never edited); a stored message left with nothing to send goes with it. */
  dropThinking(at: BlockAt, reason: string): Edit[];
  /** Stored messages (a whole turn: a prompt and every answer to it) go, links kept whole. */
  deleteMessages(ids: readonly string[], reason: string): Edit[];
}

interface CommonFixContext extends TrimEdits {
  readonly view: SessionView;
  /** Epoch ms written into the records a fix closes (time.end, time.completed). */
  readonly now: number;
  /** The options the rules ran with (a trim fix reads its budget here). */
  readonly options: RuleOptions;
  /** A new tool call id in the same family as `old` (ids are not signed; providers only need them unique). */
  freshCallId(old: string | undefined): string;
}

/** A store of message and part records (opencode: SQLite rows or JSON files). */
export interface RecordFixContext extends CommonFixContext {
  readonly kind: "records";
  readonly session: SessionRecords;
  /** The text the agent's own recovery puts where content was lost. */
  readonly placeholderText: string;
  message(id: string | undefined): MessageRecord | undefined;
  part(id: string | undefined): PartRecord | undefined;
  /** The message a part belongs to. */
  owner(part: PartRecord): MessageRecord | undefined;
  /** An update built on a copy of the stored object: the loaded record itself is never mutated. */
  update(target: MessageRecord | PartRecord, reason: string, mutate: (value: Json) => void): Edit[];
  /** Replace a record's whole content (e.g. salvaged from damaged bytes); the ids go where the store keeps them. */
  replace(target: MessageRecord | PartRecord, data: Json, reason: string): Edit[];
  delete(target: MessageRecord | PartRecord, reason: string): Edit[];
  /** A message and every part it holds. */
  deleteMessage(message: MessageRecord, reason: string): Edit[];
  /** A new part placed right after `after` (or at the end of the message), with an id that sorts there. */
  insertPart(message: MessageRecord, data: Json, reason: string, after?: PartRecord): Edit[];
  /** The agent's synthetic placeholder part, as its recovery tools insert it where content was lost. */
  insertPlaceholder(message: MessageRecord, reason: string, after?: PartRecord): Edit[];
  /** The stored assistant messages of the latest tool-use turn, when `messageId` is one of them. */
  latestToolTurn(messageId: string): MessageRecord[] | undefined;
  /** Drop a reasoning part; in the latest tool-use turn (whose thinking the API forbids changing) the turn goes whole. */
  removeReasoning(part: PartRecord, reason: string): Edit[];
  /** A part whose strings hold NULs, broken surrogates or invalid UTF-8, cleaned of them and nothing else. */
  stripCorruption(part: PartRecord, reason: string): Edit[];
  /** An unreadable part: keep what a torn write left intact, or remove it. */
  salvagePart(part: PartRecord): Edit[];
  /** An unreadable message record: salvaged, or rebuilt around its parts from its neighbours. */
  salvageMessage(message: MessageRecord): Edit[];
  /** The missing session record, recreated from what its messages say; none when there is nothing to recreate. */
  recreateSession(): Edit[];
}

/** A JSONL transcript: one record per line, linked into a tree (Claude Code, openclaw). */
export interface LineFixContext extends CommonFixContext {
  readonly kind: "lines";
  readonly history: TranscriptHistory;
  line(id: string | undefined): TranscriptLine | undefined;
  /** The line and content block a finding names (`partId` is `<line id>#<block index>`). */
  block(finding: { messageId?: string; partId?: string }): { line: TranscriptLine; index: number } | undefined;
  /** Where block `index` of a line sits in the line's value, as its handle names it (`$set.messages.3.content.2`). */
  fieldOf(line: TranscriptLine, index: number): string | undefined;
  childrenOf(line: TranscriptLine): TranscriptLine[];
  /** An update built on a copy of the parsed line: the loaded record is never mutated. */
  update(target: TranscriptLine, reason: string, mutate: (value: Json) => void): Edit[];
  /** Point a line at another parent (null: it becomes a root). */
  relink(target: TranscriptLine, parent: string | null, reason: string): Edit[];
  /**
   * Point a line at the line `parent` (null: it becomes a root). When an earlier line holds the same id, that id names
   * the earlier line, so `parent` first gets a fresh id of its own (no link can reach it by the shared one).
   */
  relinkOnto(target: TranscriptLine, parent: TranscriptLine | null, reason: string): Edit[];
  /** Delete a line; its children and the summaries naming it move to its parent, so no link dangles. */
  deleteLine(target: TranscriptLine, reason: string): Edit[];
  /** Delete lines together (a whole turn), keeping the tree whole. */
  deleteLines(targets: readonly TranscriptLine[], reason: string): Edit[];
  /** A damaged line replaced by the records recovered from it (none: the line goes). */
  split(target: TranscriptLine, values: Json[], reason: string): Edit[];
  /** Remove a thinking block; in the latest tool-use turn the turn goes whole, with its results. */
  removeThinking(target: TranscriptLine, index: number, reason: string): Edit[];
  /** Remove content block `index`; a line left with nothing to send goes (relinked). */
  dropBlock(target: TranscriptLine, index: number, reason: string): Edit[];
  /** Insert a record into the chain right after `anchor`: it takes over the anchor's children. */
  insertAfter(anchor: TranscriptLine, value: Json, reason: string, id?: string): Edit[];
  /** A fresh record id of the agent's own kind. */
  freshId(): string;
  /** Give a tool call with no result the result the agent itself writes when a call is interrupted. */
  closeInterruptedCall(line: TranscriptLine, index: number): Edit[];
  /** A user prompt left blank, as the agent itself fills one; none when the agent has no convention for it. */
  fillBlankPrompt(line: TranscriptLine): Edit[];
  /** Give the call at `call` (and the result at `result`, which answers it) the call id `id`. */
  renameCall(call: BlockAt, result: BlockAt | undefined, id: string, reason: string): Edit[];
}

export type FixContext = RecordFixContext | LineFixContext;
