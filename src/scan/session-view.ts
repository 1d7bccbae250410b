/**
 * Build the view rules read, once per session: conversation, live tail, token estimate. Anything more than one
 * rule needs is computed here, so no rule rescans the session for it.
 */
import type { SessionRecords } from "../model/opencode-records.js";
import type { SessionView } from "../model/session-view.js";
import { conversationTokens } from "../model/tokens.js";
import { isTranscript, type TranscriptRecords } from "../model/transcript.js";
import type { RuleOptions } from "../rules/rule.js";
import { opencodeConversation } from "../stores/opencode/conversation.js";
import type { LoadedSession } from "../stores/store.js";
import { transcriptHistory } from "../stores/transcript/history.js";

type ViewOptions = Pick<RuleOptions, "now" | "liveWindowMs">;

export function sessionView(loaded: LoadedSession, options: ViewOptions): SessionView {
  return isTranscript(loaded) ? transcriptSessionView(loaded, options) : opencodeSessionView(loaded, options);
}

/**
 * A transcript's view: its active history and the conversation built from it. Its live tail is the last chain line
 * when it is an assistant message and the file was written within the live window (a tool is running right now).
 */
export function transcriptSessionView(records: TranscriptRecords, options: ViewOptions): SessionView {
  const history = transcriptHistory(records);
  const damagedMessageIds = new Set(history.chain.filter((l) => l.problem).map((l) => l.ref.id));
  const view: SessionView = {
    summary: records.summary,
    conversation: history.conversation,
    transcript: history,
    damagedMessageIds,
    estimatedTokens: conversationTokens(history.conversation),
  };
  const last = history.sent.at(-1);
  if (last?.role === "assistant" && last.line === history.chain.at(-1) && isRecent(records.lastActivity, options)) view.liveTailMessageId = last.line.ref.id;
  return view;
}

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

/** Written within the live window. A window of 0 (`--include-live`) makes nothing live, even a clock ahead of ours. */
function isRecent(lastActivity: number, options: ViewOptions): boolean {
  return options.liveWindowMs > 0 && options.now - lastActivity < options.liveWindowMs;
}

/** A session whose last turn was left unjudged because it is being written: scan and repair say so, never silently. */
export interface LiveSkip {
  id: string;
  reason: "live";
  /** When the session was last written (epoch ms), by its records' own times. */
  updatedAt: number;
}

export function liveSkip(view: SessionView): LiveSkip | undefined {
  if (view.liveTailMessageId === undefined) return undefined;
  const updatedAt = view.opencode?.lastActivity ?? view.transcript?.records.lastActivity ?? view.summary.updated;
  return { id: view.summary.id, reason: "live", updatedAt };
}
