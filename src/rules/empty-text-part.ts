import { atBlock, isExempt, isSendable, parts } from "./helpers.js";
import type { Edit } from "../model/edit.js";
import type { RecordFixContext } from "../model/fix-context.js";
import type { Finding, Report, Rule } from "./rule.js";

export const emptyTextPart: Rule = {
  id: "empty-text-part",
  severity: "error",
  description: "text part that is empty or whitespace only (provider: `text content blocks must be non-empty`)",
  fixedBy: "repair",
  apis: ["anthropic"],
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
  fix(finding, context) {
    if (context.kind === "records") return fixPart(finding, context);
    const at = context.block(finding);
    if (!at) return [];
    const { line, index } = at;
    const sent = context.history.sent.find((s) => s.line === line);
    const keepsContent = sent?.blocks.some((b, i) => i !== index && b.type !== "thinking" && !(b.type === "text" && b.blank));
    if (keepsContent) return context.dropBlock(line, index, "removed the empty text block; the message keeps its other content");
    const message = line.value?.message as { role?: unknown } | undefined;
    // An agent that fills a blank prompt itself (openclaw's `(continue)`) has it filled the same way.
    const filled = message?.role === "user" ? context.fillBlankPrompt(line) : [];
    if (filled.length > 0) return filled;
    return context.deleteLine(line, "removed the line that sends nothing but an empty text (kept in the backup)");
  },
};

/** opencode: the empty part goes, or becomes the agent's placeholder when the message has nothing else to say. */
function fixPart(finding: Finding, context: RecordFixContext): Edit[] {
  const part = context.part(finding.partId);
  const message = part ? context.owner(part) : undefined;
  if (!part || !message?.info) return [];
  const role = message.info.role;
  const keepsContent = parts(message).some(
    (p) => p.record !== part && isSendable(role, p.part) && p.part.type !== "reasoning" && !(p.part.type === "text" && p.record.content.textBlank),
  );
  if (keepsContent) return context.delete(part, "removed the empty text part; the message keeps its other content");
  return context.update(part, "the message has nothing else to say: the empty text becomes opencode's placeholder", (value) => {
    value.text = context.placeholderText;
    value.synthetic = true;
  });
}
