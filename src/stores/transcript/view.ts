/** A transcript's view of a session for the rules: its active history and the conversation built from it. */
import { isRecent, type MeasuredPrompt, type SessionView, type TranscriptHistory, type ViewOptions } from "../../model/session-view.js";
import type { Dialect } from "./dialect.js";
import { dialectNamed } from "./format.js";
import { conversationTokens } from "../../model/tokens.js";
import type { TranscriptRecords } from "../../model/transcript.js";
import { transcriptHistory } from "./history.js";

/** Its live tail is the last chain line when it is an assistant message and the file was written within the live window (a tool is running right now). */
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
  const dialect = dialectNamed(records.dialect);
  if (dialect.api) view.api = dialect.api;
  if (dialect.copes) view.copes = dialect.copes;
  const errors = dialect.storedErrors?.(records.lines);
  if (errors && errors.length > 0) view.storedErrors = errors;
  const measured = measuredPrompt(history, dialect);
  if (measured) view.measuredPrompt = measured;
  const last = history.sent.at(-1);
  if (last?.role === "assistant" && last.line === history.chain.at(-1) && isRecent(records.lastActivity, options)) view.liveTailMessageId = last.line.ref.id;
  return view;
}

/** The latest sent assistant line whose response carries usage (Claude Code: every line of a response repeats it). */
function measuredPrompt(history: TranscriptHistory, dialect: Dialect): MeasuredPrompt | undefined {
  for (let i = history.sent.length - 1; i >= 0; i--) {
    const { line, role } = history.sent[i]!;
    if (role !== "assistant") continue;
    const measured = dialect.promptTokens(line, history.records.lines);
    if (measured) return { messageId: line.ref.id, ...measured };
  }
  return undefined;
}
