import { hasThinkingSignature } from "../model/opencode.js";
import { at, isAnthropicModel, isExempt, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { removeReasoning } from "../plan/fixes.js";

export const unsignedThinking: Rule = {
  id: "unsigned-thinking",
  severity: "warning",
  description: "reasoning from an Anthropic model without a signature in its metadata",
  fix: "repair",
  check(view) {
    // Only reasoning that is sent back matters: opencode skips errored turns and history before a compaction.
    const sent = new Set(view.conversation.messages.flatMap((m) => m.sourceMessageIds));
    const reports: Report[] = [];
    for (const message of messages(view)) {
      const info = message.info;
      if (info?.role !== "assistant" || !sent.has(message.ref.id) || !isAnthropicModel(info.providerID, info.modelID)) continue;
      // A turn killed mid-thought has no signature yet: that is incomplete-message's finding.
      if (info.time.completed === undefined || isExempt(view, message.ref.id)) continue;
      for (const { record, part } of parts(message)) {
        if (part.type === "reasoning" && !hasThinkingSignature((part as { metadata?: unknown }).metadata)) {
          reports.push(at(record, `reasoning from ${info.providerID}/${info.modelID} has no signature; Anthropic rejects it (\`Invalid \`signature\` in \`thinking\` block\`) if it is sent back`));
        }
      }
    }
    return reports;
  },
  repairOnRequest: true,
  repair(finding, context) {
    const part = context.part(finding.partId);
    return part ? removeReasoning(part, context, "removed reasoning without a signature (a signature cannot be made up)") : [];
  },
};
