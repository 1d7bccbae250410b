import { hasThinkingSignature } from "../model/opencode.js";
import { at, atBlock, isAnthropicModel, isExempt, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const unsignedThinking: Rule = {
  id: "unsigned-thinking",
  severity: "warning",
  description: "reasoning from an Anthropic model without a signature in its metadata",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    // Only reasoning that is sent back matters: opencode skips errored turns and history before a compaction.
    const sent = new Set(view.conversation.messages.flatMap((m) => m.sourceMessageIds));
    const reports: Report[] = [];
    for (const { line, role, blocks } of view.transcript?.sent ?? []) {
      if (role !== "assistant" || isExempt(view, line.ref.id) || !fromAnthropic(line.value)) continue;
      for (const block of blocks) {
        if (block.type === "thinking" && !block.signed)
          reports.push(
            atBlock(
              block,
              "thinking from an Anthropic model has no signature; Anthropic rejects it (`Invalid `signature` in `thinking` block`) if it is sent back",
            ),
          );
      }
    }
    for (const message of messages(view)) {
      const info = message.info;
      if (info?.role !== "assistant" || !sent.has(message.ref.id) || !isAnthropicModel(info.providerID, info.modelID)) continue;
      // A turn killed mid-thought has no signature yet: that is incomplete-message's finding.
      if (info.time.completed === undefined || isExempt(view, message.ref.id)) continue;
      for (const { record, part } of parts(message)) {
        if (part.type === "reasoning" && !hasThinkingSignature((part as { metadata?: unknown }).metadata)) {
          reports.push(
            at(
              record,
              `reasoning from ${info.providerID}/${info.modelID} has no signature; Anthropic rejects it (\`Invalid \`signature\` in \`thinking\` block\`) if it is sent back`,
            ),
          );
        }
      }
    }
    return reports;
  },
  repairOnRequest: true,
  fix(finding, context) {
    if (context.kind === "lines") {
      const at = context.block(finding);
      return at ? context.removeThinking(at.line, at.index, "removed thinking without a signature (a signature cannot be made up)") : [];
    }
    const part = context.part(finding.partId);
    return part ? context.removeReasoning(part, "removed reasoning without a signature (a signature cannot be made up)") : [];
  },
};

/** Claude Code only talks to Anthropic's models; a pi turn names its provider and model. */
function fromAnthropic(value: Record<string, unknown> | undefined): boolean {
  if (value?.type === "assistant") return true;
  const message = value?.message as { provider?: unknown; model?: unknown } | undefined;
  return isAnthropicModel(String(message?.provider ?? ""), String(message?.model ?? ""));
}
