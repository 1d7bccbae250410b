/** What Claude Code writes itself where a fix needs it: uuids, and the result of a tool use it interrupted. */
import { randomUUID } from "node:crypto";
import type { Json } from "../../model/edit.js";
import type { TranscriptLine } from "../../model/transcript.js";
import { CLAUDE_INTERRUPTED_RESULT } from "./claude.js";
import type { AgentFixes, TranscriptFixContext } from "./fixing.js";

export const claudeFixes: AgentFixes = {
  freshId: () => randomUUID(),
  closeInterruptedCall: (context, line, _index, call) =>
    context.insertAfter(
      context.resultAnchor(line),
      claudeResult(line, call, context),
      "gave the interrupted call the error result Claude Code writes when a tool use is interrupted",
    ),
};

/** Envelope fields a Claude Code line repeats on every record of a session. */
const CLAUDE_ENVELOPE = ["isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch", "slug", "entrypoint", "agentId"];

function claudeResult(callLine: TranscriptLine, call: Json, context: TranscriptFixContext): Json {
  const source = callLine.value!;
  const record: Json = { parentUuid: null };
  for (const key of CLAUDE_ENVELOPE) if (source[key] !== undefined) record[key] = source[key];
  record.type = "user";
  record.message = { role: "user", content: [{ type: "tool_result", content: CLAUDE_INTERRUPTED_RESULT, is_error: true, tool_use_id: call.id }] };
  record.uuid = context.freshId();
  // The call's own time: a later stamp could make this line look like the newest leaf to tools that pick by time.
  record.timestamp = source.timestamp;
  record.toolUseResult = `Error: ${CLAUDE_INTERRUPTED_RESULT}`;
  record.sourceToolAssistantUUID = callLine.uuid;
  return record;
}
