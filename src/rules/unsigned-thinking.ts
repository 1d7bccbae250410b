import { hasThinkingSignature } from "../model/opencode.js";
import { at, isAnthropicModel, isLiveTail, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const unsignedThinking: Rule = {
  id: "unsigned-thinking",
  severity: "warning",
  description: "reasoning from an Anthropic model without a signature in its metadata",
  fix: "repair",
  check(view) {
    const reports: Report[] = [];
    for (const message of messages(view)) {
      const info = message.info;
      if (info?.role !== "assistant" || !isAnthropicModel(info.providerID, info.modelID) || isLiveTail(view, message.ref.id)) continue;
      for (const { record, part } of parts(message)) {
        if (part.type === "reasoning" && !hasThinkingSignature((part as { metadata?: unknown }).metadata)) {
          reports.push(at(record, `reasoning from ${info.providerID}/${info.modelID} has no signature; Anthropic rejects it (\`Invalid \`signature\` in \`thinking\` block\`) if it is sent back`));
        }
      }
    }
    return reports;
  },
};
