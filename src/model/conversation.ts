/**
 * The conversation view: what the provider would receive, request-shaped and store-neutral. Messages alternate
 * as the request does (consecutive same-role messages are merged, tool results travel in user messages), and
 * every block keeps a handle to the record and field it came from, so a finding or a fix can point back at disk.
 */
export interface Handle {
  kind: "message" | "part" | "line";
  id: string;
  messageId?: string;
  field?: string;
  path?: string;
  line?: number;
}

interface BlockBase {
  source: Handle;
  /** Size of what is sent, in UTF-16 code units (media: characters of the encoded data). */
  chars: number;
  /** The content sent, when the store has it as text. */
  text?: string;
}

export interface TextBlock extends BlockBase {
  type: "text";
  blank: boolean;
  synthetic?: boolean;
  /** A client's reminder that goes in a system turn on models that take one (Claude Code: stores/transcript/claude-replay.ts). */
  systemTurn?: true;
}
export interface ThinkingBlock extends BlockBase {
  type: "thinking";
  /** The provider signature travels with it (same provider and model, signature present). */
  signed: boolean;
  redacted?: boolean;
  /** Its text is empty or whitespace only (the API: `each thinking block must contain non-whitespace thinking`). */
  blank?: boolean;
  /** Its signature (a redacted block: its encrypted data), which tells one block from another even with no text. */
  signature?: string;
  /** The model that produced it, as the store records it (provider/prefix-bound.ts: does it bind its prefix?). */
  model?: string;
}
export interface ToolUseBlock extends BlockBase {
  type: "tool_use";
  id: string;
  name: string;
  /** The call's input as stored (not a copy), when the store has it: what tells two identical calls apart. */
  input?: unknown;
}
export interface ToolResultBlock extends BlockBase {
  type: "tool_result";
  toolUseId: string;
  isError: boolean;
  /** Images and documents inside the result's content (`chars` counts their data too). */
  media?: MediaItem[];
}
export interface MediaBlock extends BlockBase {
  type: "media";
  mime: string;
  /** The encoded data as stored (base64, or a data: URL), when the store has it: its header tells an image's size. */
  data?: string;
}
/** A medium inside a tool result: item `index` of the result's content. */
export interface MediaItem {
  index: number;
  mime: string;
  chars: number;
  data?: string;
}
export type Block = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | MediaBlock;

export interface ConversationMessage {
  /** `system`: a system turn inside `messages` (Claude Code on current models), never merged with its neighbours. */
  role: "user" | "assistant" | "system";
  blocks: Block[];
  /** Stored messages whose content was merged into this request message, in order. */
  sourceMessageIds: string[];
}

export interface SkippedMessage {
  messageId: string;
  reason: string;
}

export interface Conversation {
  messages: ConversationMessage[];
  /** Stored messages the agent itself leaves out of the request, and why. */
  skipped: SkippedMessage[];
  /** First stored message of the history that is sent (after the last finished compaction). */
  historyStartMessageId?: string;
  /**
   * Images and documents of the history the client itself leaves out of this request (Claude Code's media budget:
   * stores/transcript/claude-media.ts). They come back once the history holds fewer, so a byte budget counts them.
   */
  withheld?: WithheldMedium[];
  /**
   * Stored lines whose media the client leaves out of every request since a stored API error blamed them (Claude
   * Code after a 413: stores/transcript/claude-media.ts). They do not come back while that error stays.
   */
  rejectedMediaIn?: string[];
}

/** A medium the client leaves out of the request: its block (a tool result's: the item too) and the client's text. */
export interface WithheldMedium {
  block: Block;
  item?: MediaItem;
  why: string;
}
