/**
 * Tool results of a transcript as the trim strategies see them: which are sent outside the protected last turns,
 * and how a fix rewrites one (Claude Code: a `tool_result` block's `content`; pi: a toolResult message's content).
 * Only results whose content is text are rewritten; the whole result stays in the backup.
 */
import type { ToolResultBlock } from "../../model/conversation.js";
import type { TranscriptHistory } from "../../model/session-view.js";
import type { TranscriptLine } from "../../model/transcript.js";
import { isObject, type Edit, type Json } from "../../model/edit.js";
import type { LineFixContext } from "../../model/fix-context.js";
import type { Finding } from "../rule.js";

export interface SentOutput {
  line: TranscriptLine;
  block: ToolResultBlock & { text: string };
}

/** Turns of a transcript: each starts at a user line that says something (not only tool results). */
export function transcriptTurns(history: TranscriptHistory): string[][] {
  const out: string[][] = [];
  for (const { line, role, blocks } of history.sent) {
    const prompt = role === "user" && blocks.some((b) => b.type !== "tool_result");
    if (prompt || out.length === 0) out.push([line.ref.id]);
    else out.at(-1)!.push(line.ref.id);
  }
  return out;
}

/** Text tool results sent outside the kept lines, in request order. */
export function sentOutputs(history: TranscriptHistory, keep: ReadonlySet<string>): SentOutput[] {
  const found: SentOutput[] = [];
  for (const { line, blocks } of history.sent) {
    if (keep.has(line.ref.id)) continue;
    for (const block of blocks) if (block.type === "tool_result" && block.text !== undefined) found.push({ line, block: block as SentOutput["block"] });
  }
  return found;
}

/** A fix that gives the named result new text. */
export function rewriteOutput(finding: Finding, context: LineFixContext, reason: string, rewrite: (text: string) => string): Edit[] {
  const at = context.block(finding);
  if (!at) return [];
  return context.update(at.line, reason, (value) => {
    const message = value.message as Json;
    if (message.role === "toolResult") {
      message.content = [{ type: "text", text: rewrite(joined(message.content)) }];
      return;
    }
    const block = (message.content as Json[])[at.index];
    if (isObject(block)) block.content = typeof block.content === "string" ? rewrite(block.content) : [{ type: "text", text: rewrite(joined(block.content)) }];
  });
}

function joined(content: unknown): string {
  return Array.isArray(content) ? content.map((c) => (isObject(c) && typeof c.text === "string" ? c.text : "")).join("\n") : String(content ?? "");
}
