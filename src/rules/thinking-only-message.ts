import { at, isExempt, isThinkingOnly, messages } from "./helpers.js";
import type { Rule } from "./rule.js";

export const thinkingOnlyMessage: Rule = {
  id: "thinking-only-message",
  severity: "error",
  description: "assistant message whose only content is reasoning",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    return messages(view)
      .filter((m) => isThinkingOnly(m) && !isExempt(view, m.ref.id))
      .map((m) => at(m, "assistant message holds only reasoning: the reply was cut off before any text or tool call"));
  },
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const message = context.message(finding.messageId);
    return message ? context.insertPlaceholder(message, "closed the reasoning-only reply with opencode's placeholder text (the reasoning stays verbatim)") : [];
  },
};
