/**
 * Build the view rules read, once per session: conversation, live tail, token estimate. Anything more than one
 * rule needs is computed here, so no rule rescans the session for it.
 */
import type { SessionRecords } from "../model/opencode-records.js";
import type { SessionView } from "../model/session-view.js";
import { conversationTokens } from "../model/tokens.js";
import type { RuleOptions } from "../rules/rule.js";
import { opencodeConversation } from "../stores/opencode/conversation.js";

export function opencodeSessionView(records: SessionRecords, options: Pick<RuleOptions, "now" | "liveWindowMs">): SessionView {
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
function liveTail(records: SessionRecords, options: Pick<RuleOptions, "now" | "liveWindowMs">): string | undefined {
  const last = records.messages.at(-1);
  const info = last?.info;
  if (!last || info?.role !== "assistant" || info.time.completed !== undefined || info.error) return undefined;
  return options.now - records.lastActivity < options.liveWindowMs ? last.ref.id : undefined;
}
