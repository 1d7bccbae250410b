import type { TranscriptHistory } from "../model/session-view.js";
import type { TranscriptLine } from "../model/transcript.js";
import type { Json } from "../plan/fix-context.js";
import type { TranscriptFixContext } from "../plan/transcript-fix-context.js";
import { CLAUDE_INTERRUPTED_RESULT } from "../stores/transcript/claude.js";
import { OPENCLAW_MISSING_RESULT } from "../stores/transcript/openclaw.js";
import { atBlock, findingBlock, isExempt } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * Transcripts: a tool call with no result anywhere after it on the active chain. The agent was interrupted mid-call
 * and every later request is rejected. opencode's interrupted calls are tool-call-interrupted's (their state is
 * stored on the call itself).
 */
export const toolResultMissing: Rule = {
  id: "tool-result-missing",
  severity: "error",
  description: "transcript tool call with no tool result anywhere after it (`tool_use` ids were found without `tool_result` blocks)",
  fix: "repair",
  check(view) {
    const history = view.transcript;
    if (!history) return [];
    const lastResult = new Map<string, number>();
    history.sent.forEach(({ blocks }, i) => {
      for (const block of blocks) if (block.type === "tool_result") lastResult.set(block.toolUseId, i);
    });
    const reports: Report[] = [];
    history.sent.forEach(({ line, blocks }, i) => {
      if (isExempt(view, line.ref.id)) return;
      for (const block of blocks) {
        if (block.type !== "tool_use" || (lastResult.get(block.id) ?? -1) > i) continue;
        reports.push(atBlock(block, `${block.name} call ${block.id} has no tool result after it (the agent was interrupted mid-call; rejected: \`tool_use\` ids were found without \`tool_result\` blocks immediately after)`));
      }
    });
    return reports;
  },
  repairTranscript(finding, context) {
    const at = findingBlock(finding, context);
    if (!at?.line.value) return [];
    const { line, index } = at;
    const message = line.value!.message as Json | undefined;
    const call = (Array.isArray(message?.content) ? message.content[index] : undefined) as Json | undefined;
    if (!call) return [];
    if (context.dialect.name === "openclaw") {
      const stop = message?.stopReason;
      // openclaw #4597: an aborted or failed turn may hold a half-streamed call; a made-up result for it is rejected.
      if (stop === "error" || stop === "aborted") return context.dropBlock(line, index, `dropped the ${String(call.name)} call of a turn that ended with "${stop}" (it may be half-streamed; openclaw drops these too)`);
      return context.insertAfter(anchorOf(context.history, line, context), openclawResult(line, call, context), "gave the interrupted call the error result openclaw itself inserts");
    }
    return context.insertAfter(anchorOf(context.history, line, context), claudeResult(line, call, context), "gave the interrupted call the error result Claude Code writes when a tool use is interrupted");
  },
};

/**
 * Where a result belongs: after the last line of the call's response (Claude Code writes one line per block) and
 * after the results already written for it, so the new line joins the chain where the agent would have put it.
 */
function anchorOf(history: TranscriptHistory, line: TranscriptLine, context: TranscriptFixContext): TranscriptLine {
  const chain = history.chain;
  let i = chain.indexOf(line);
  const response = context.dialect.responseId(line);
  while (i + 1 < chain.length) {
    const next = chain[i + 1]!;
    const sameResponse = response !== undefined && context.dialect.responseId(next) === response;
    if (!sameResponse && !isResultLine(next)) break;
    i++;
  }
  return chain[i] ?? line;
}

function isResultLine(line: TranscriptLine): boolean {
  const message = line.value?.message as Json | undefined;
  if (message?.role === "toolResult") return true;
  return line.value?.type === "user" && Array.isArray(message?.content) && message.content.length > 0 && message.content.every((b) => (b as Json)?.type === "tool_result");
}

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

function openclawResult(callLine: TranscriptLine, call: Json, context: TranscriptFixContext): Json {
  const source = callLine.value!;
  const message = source.message as Json;
  return {
    type: "message",
    id: context.freshId(),
    parentId: null,
    timestamp: source.timestamp,
    message: {
      role: "toolResult",
      toolCallId: call.id,
      toolName: typeof call.name === "string" && call.name.trim() !== "" ? call.name : "unknown",
      content: [{ type: "text", text: OPENCLAW_MISSING_RESULT }],
      isError: true,
      timestamp: message.timestamp,
    },
  };
}
