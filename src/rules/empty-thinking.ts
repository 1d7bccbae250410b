import type { Edit } from "../model/edit.js";
import type { FixContext } from "../model/fix-context.js";
import { atBlock, isExempt } from "./helpers.js";
import type { Finding, Report, Rule } from "./rule.js";

/**
 * A thinking block whose text is empty or whitespace only (a client that stored the block emptied: claude-code#63147,
 * openclaw#107221). The API answers `messages.N.content.M.thinking: each thinking block must contain non-whitespace
 * thinking`. The block cannot be given its text back and a signature cannot be made up, so it goes; in the latest
 * tool-use turn, whose thinking the API forbids changing, the turn goes whole with its results (the model redoes it).
 */
export const emptyThinking: Rule = {
  id: "empty-thinking",
  severity: "error",
  description: "thinking block with no text (provider: `each thinking block must contain non-whitespace thinking`)",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    const reports: Report[] = [];
    for (const message of view.conversation.messages) {
      if (message.role !== "assistant") continue;
      for (const block of message.blocks) {
        // Sent blocks only: opencode leaves unsigned reasoning out of the request (a transcript sends what it stores).
        if (block.type !== "thinking" || !block.blank || block.redacted || (!block.signed && !view.transcript)) continue;
        if (isExempt(view, block.source.messageId)) continue;
        reports.push(
          atBlock(block, "thinking block with no text is sent to the provider (rejected: `each thinking block must contain non-whitespace thinking`)"),
        );
      }
    }
    return reports;
  },
  fix: dropThinkingBlock("removed the thinking block that holds no text (it cannot be refilled, and a signature cannot be made up)"),
};

/** The fix of a thinking block that has to go: dropped, or in the latest tool-use turn the turn goes whole. */
export function dropThinkingBlock(reason: string): (finding: Finding, context: FixContext) => Edit[] {
  return (finding, context) => {
    if (context.kind === "lines") {
      const at = context.block(finding);
      return at ? context.removeThinking(at.line, at.index, reason) : [];
    }
    const part = context.part(finding.partId);
    return part ? context.removeReasoning(part, reason) : [];
  };
}
