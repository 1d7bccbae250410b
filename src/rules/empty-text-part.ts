import { atBlock, isExempt } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

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
};
