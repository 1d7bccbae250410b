import { atBlock, isExempt, isSendable, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { INTERRUPTED_PLACEHOLDER } from "../plan/fix-context.js";

export const emptyTextPart: Rule = {
  id: "empty-text-part",
  severity: "error",
  description: "text part that is empty or whitespace only (provider: `text content blocks must be non-empty`)",
  fix: "repair",
  check(view) {
    const reports: Report[] = [];
    for (const message of view.conversation.messages) {
      for (const block of message.blocks) {
        if (block.type !== "text" || !block.blank || isExempt(view, block.source.messageId)) continue;
        reports.push(
          atBlock(
            block,
            block.chars === 0
              ? "empty text part is sent to the provider (rejected: `text content blocks must be non-empty`)"
              : "whitespace-only text part is sent to the provider (rejected: `text content blocks must contain non-whitespace text`)",
          ),
        );
      }
    }
    return reports;
  },
  repair(finding, context) {
    const part = context.part(finding.partId);
    const message = part ? context.owner(part) : undefined;
    if (!part || !message?.info) return [];
    const role = message.info.role;
    const keepsContent = parts(message).some(
      (p) => p.record !== part && isSendable(role, p.part) && p.part.type !== "reasoning" && !(p.part.type === "text" && p.record.content.textBlank),
    );
    if (keepsContent) return context.delete(part, "removed the empty text part; the message keeps its other content");
    return context.update(part, "the message has nothing else to say: the empty text becomes opencode's placeholder", (value) => {
      value.text = INTERRUPTED_PLACEHOLDER;
      value.synthetic = true;
    });
  },
};
