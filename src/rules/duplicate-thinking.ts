import { atBlock, isExempt } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * The same thinking block stored more than once in one assistant message (openclaw duplicated one block ~50 times,
 * openclaw#107221): the API sees the latest message's thinking changed (`… cannot be modified`). The first copy is
 * what the model sent; the repeats go, verbatim in the backup.
 */
export const duplicateThinking: Rule = {
  id: "duplicate-thinking",
  severity: "error",
  description: "the same thinking block repeated in one assistant message (provider: `thinking … blocks … cannot be modified`)",
  fixedBy: "repair",
  check(view) {
    const reports: Report[] = [];
    for (const message of view.conversation.messages) {
      if (message.role !== "assistant") continue;
      const seen = new Map<string, string>();
      for (const block of message.blocks) {
        if (block.type !== "thinking" || block.text === undefined || isExempt(view, block.source.messageId)) continue;
        const key = `${block.redacted ? "r" : "t"}:${block.text}`;
        const first = seen.get(key);
        if (first === undefined) seen.set(key, block.source.id);
        else
          reports.push(atBlock(block, `thinking block repeats ${first} word for word in the same message (the provider sees the message's thinking changed)`));
      }
    }
    return reports;
  },
  independentFixes: true,
  // Only the repeat goes, even in the latest turn: the first copy is the block the model sent.
  fix: (finding, context) => context.dropThinking(finding, "removed a repeated copy of a thinking block (the first copy stays; the repeat is in the backup)"),
};
