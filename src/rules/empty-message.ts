import { at, isLiveTail, isSendable, messages, parts } from "./helpers.js";
import type { Rule } from "./rule.js";

/**
 * Judged on the stored message, not the merged request: a turn that kept only step markers lost its content,
 * whatever the agent's request builder later makes of it. Messages opencode skips anyway (errored assistant
 * turns), unfinished ones (incomplete-message) and ones with unreadable parts (unreadable-record) are left to
 * those rules: one defect, one finding.
 */
export const emptyMessage: Rule = {
  id: "empty-message",
  severity: "error",
  description: "message with nothing the provider would receive (e.g. only step-start/step-finish)",
  fixedBy: "repair",
  apis: ["anthropic"],
  check(view) {
    return messages(view)
      .filter((m) => {
        const info = m.info;
        if (!info || isLiveTail(view, m.ref.id) || m.parts.some((p) => p.problem)) return false;
        if (info.role === "assistant" && (info.error || info.time.completed === undefined)) return false;
        return !parts(m).some((p) => isSendable(info.role, p.part));
      })
      .map((m) => {
        const kinds = [...new Set(m.parts.map((p) => p.part?.type ?? "?"))];
        return at(m, `${m.info!.role} message has no content the provider would receive (${kinds.length ? `only ${kinds.join(", ")}` : "no parts"})`);
      });
  },
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const message = context.message(finding.messageId);
    return message ? context.insertPlaceholder(message, "gave the empty message opencode's placeholder text") : [];
  },
};
