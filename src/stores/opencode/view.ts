/** opencode's view of a session for the rules: its records, the conversation built from them, its live tail. */
import type { SessionRecords } from "../../model/opencode-records.js";
import { isRecent, type SessionView, type ViewOptions } from "../../model/session-view.js";
import { conversationTokens } from "../../model/tokens.js";
import { opencodeConversation } from "./conversation.js";

export function opencodeSessionView(records: SessionRecords, options: ViewOptions): SessionView {
  const conversation = opencodeConversation(records);
  const damagedMessageIds = new Set(records.messages.filter((m) => m.problem || m.parts.some((p) => p.problem)).map((m) => m.ref.id));
  const view: SessionView = {
    summary: records.summary,
    conversation,
    opencode: records,
    damagedMessageIds,
    estimatedTokens: conversationTokens(conversation),
  };
  const live = liveTail(records, options);
  if (live) view.liveTailMessageId = live;
  return view;
}

/**
 * The last message is a turn being written right now when it is an unfinished assistant message and the session
 * saw a write within the live window. Older than that, nobody is writing it: it is a crash.
 */
function liveTail(records: SessionRecords, options: ViewOptions): string | undefined {
  const last = records.messages.at(-1);
  const info = last?.info;
  if (!last || info?.role !== "assistant" || info.time.completed !== undefined || info.error) return undefined;
  return isRecent(records.lastActivity, options) ? last.ref.id : undefined;
}
