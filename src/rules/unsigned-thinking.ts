import { hasThinkingSignature } from "../model/opencode.js";
import type { SessionView } from "../model/session-view.js";
import { at, atBlock, isAnthropicModel, isExempt, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const unsignedThinking: Rule = {
  id: "unsigned-thinking",
  severity: "warning",
  description: "reasoning from an Anthropic model without a signature in its metadata",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
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
    // Only reasoning that is sent back matters: opencode skips errored turns and history before a compaction. The set
    // is made on the first Anthropic reply (a transcript, or a session of other models, never needs it).
    let sent: Set<string> | undefined;
    for (const message of messages(view)) {
      const info = message.info;
      if (info?.role !== "assistant" || !isAnthropicModel(info.providerID, info.modelID)) continue;
      sent ??= sentMessageIds(view);
      if (!sent.has(message.ref.id)) continue;
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

/** The stored messages the request is built from. */
function sentMessageIds(view: SessionView): Set<string> {
  const ids = new Set<string>();
  for (const message of view.conversation.messages) for (const id of message.sourceMessageIds) ids.add(id);
  return ids;
}

/** Claude Code only talks to Anthropic's models; a pi turn names its provider and model. */
function fromAnthropic(value: Record<string, unknown> | undefined): boolean {
  if (value?.type === "assistant") return true;
  const message = value?.message as { provider?: unknown; model?: unknown } | undefined;
  return isAnthropicModel(String(message?.provider ?? ""), String(message?.model ?? ""));
}
