import { atBlock, isExempt, isThinkingOnly, messages } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const trailingThinking: Rule = {
  id: "trailing-thinking",
  severity: "error",
  description: "assistant message whose last sendable block is reasoning",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    const thinkingOnly = new Set(
      messages(view)
        .filter(isThinkingOnly)
        .map((m) => m.ref.id),
    );
    const reports: Report[] = [];
    for (const message of view.conversation.messages) {
      const last = message.blocks.at(-1);
      if (message.role !== "assistant" || last?.type !== "thinking" || message.sourceMessageIds.some((id) => isExempt(view, id))) continue;
      const owner = last.source.messageId;
      if (owner !== undefined && thinkingOnly.has(owner)) continue;
      reports.push(atBlock(last, "assistant message ends with a reasoning block (rejected: `The final block in an assistant message cannot be `thinking``)"));
    }
    return reports;
  },
  /** A transcript keeps no placeholder convention of its own: the trailing reasoning (unfinished thought) goes. */
  fix(finding, context) {
    if (context.kind === "lines") {
      const at = context.block(finding);
      return at ? context.removeThinking(at.line, at.index, "removed the reasoning the reply ended on") : [];
    }
    const part = context.part(finding.partId);
    const message = part ? context.owner(part) : undefined;
    if (!part || !message) return [];
    return context.insertPlaceholder(message, "placed opencode's placeholder text after the trailing reasoning (the reasoning stays verbatim)", part);
  },
};
