import { atBlock, isExempt } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/** Judged per request message (steps split, same-role messages merged), as the API judges it. */
export const thinkingBlockOrder: Rule = {
  id: "thinking-block-order",
  severity: "error",
  description: "reasoning present but not the first block of its assistant message",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    const reports: Report[] = [];
    for (const message of view.conversation.messages) {
      if (message.role !== "assistant") continue;
      if (message.sourceMessageIds.some((id) => isExempt(view, id))) continue;
      const first = message.blocks[0];
      if (!first || first.type === "thinking") continue;
      for (const block of message.blocks) {
        if (block.type !== "thinking") continue;
        reports.push(atBlock(block, `reasoning follows a ${first.type} block in the same assistant message (the API wants thinking first)`));
      }
    }
    return reports;
  },
  fix(finding, context) {
    if (context.kind === "lines") {
      const at = context.block(finding);
      return at ? context.removeThinking(at.line, at.index, "removed reasoning that came after other content (never moved or rewritten)") : [];
    }
    const part = context.part(finding.partId);
    return part
      ? context.removeReasoning(
          part,
          "removed reasoning that came after other content (thinking from earlier turns is optional for the API; never moved or rewritten)",
        )
      : [];
  },
};
