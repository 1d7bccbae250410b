import { atBlock } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * Gemini API: a model turn stored with nothing to send (no parts, or only an empty text part; a reply cut off
 * before its first word). Gemini CLI 0.61 drops such a turn when it resumes (its curated history), so the resume
 * goes through: a warning, and the record goes from the file (every copy of it) so the file says what is sent.
 */
export const emptyTurn: Rule = {
  id: "empty-turn",
  severity: "warning",
  description: "a stored model turn with nothing to send (no parts, or only empty text)",
  fixedBy: "repair",
  apis: ["gemini"],
  check(view) {
    const reports: Report[] = [];
    const sent = view.transcript?.sent ?? [];
    sent.forEach((entry, i) => {
      if (entry.role !== "assistant" || !entry.blocks.every((b) => b.type === "text" && b.blank)) return;
      if (i === sent.length - 1 && view.liveTailMessageId === entry.line.ref.id) return;
      const copes = view.copes?.emptyTurn;
      const block = entry.blocks[0];
      if (block) reports.push(atBlock(block, `a model turn with nothing to send${copes ? `; ${copes}` : " (rejected: contents.parts must not be empty)"}`));
    });
    return reports;
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const at = context.block(finding);
    return at ? context.dropBlock(at.line, at.index, "dropped the model turn that has nothing to send (kept in the backup)") : [];
  },
};
