/** opencode's view of a session for the rules: its records, the conversation built from them, its live tail. */
import type { SessionRecords } from "../../model/opencode-records.js";
import { isRecent, type MeasuredPrompt, type SessionView, type ViewOptions } from "../../model/session-view.js";
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
  const measured = measuredPrompt(records);
  if (measured) view.measuredPrompt = measured;
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

/** opencode stores the usage of an assistant message's last step: input + cache read + cache write is that prompt. */
function measuredPrompt(records: SessionRecords): MeasuredPrompt | undefined {
  for (let i = records.messages.length - 1; i >= 0; i--) {
    const info = records.messages[i]!.info;
    if (info?.role !== "assistant") continue;
    const tokens = info.tokens.input + info.tokens.cache.read + info.tokens.cache.write;
    if (tokens > 0) return { messageId: records.messages[i]!.ref.id, tokens, source: "opencode stored" };
  }
  return undefined;
}
