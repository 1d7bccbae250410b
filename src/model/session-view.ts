/**
 * Everything a rule may look at for one session: the store's records, the conversation built from them, and the
 * few facts computed once per session so that no rule rescans for them.
 */
import type { Conversation } from "./conversation.js";
import type { SessionRecords, SessionSummary } from "./opencode-records.js";

export interface SessionView {
  summary: SessionSummary;
  conversation: Conversation;
  /** opencode's records; other store families will add their own view beside it. */
  opencode?: SessionRecords;
  /** The last message, when it is an assistant turn still being written (so it is not damage). */
  liveTailMessageId?: string;
  /**
   * Messages with an unreadable or invalid record (their own or a part's). What is sent for them is unknowable,
   * so rules about the sent shape leave them to unreadable-record / schema-violation: one defect, one finding.
   */
  damagedMessageIds: ReadonlySet<string>;
  /** Estimated tokens of what would be sent (see model/tokens.ts). */
  estimatedTokens: number;
}
