import { atLine } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * Gemini CLI: a `{"$rewindTo": id}` line naming a record that is not in the history at that point. The client's
 * loader then clears every message, so `gemini --resume <id>` finds nothing to resume ("No previous sessions found
 * for this project.", exit 42). The line goes; the history before it comes back.
 */
export const unknownRewind: Rule = {
  id: "unknown-rewind",
  severity: "error",
  description: "a rewind that names a message not in the history (Gemini CLI then clears the whole session)",
  fixedBy: "repair",
  apis: ["gemini"],
  check(view) {
    const history = view.transcript;
    if (!history) return [];
    const reports: Report[] = [];
    const seen = new Set<string>();
    for (const line of history.records.lines) {
      const value = line.value;
      if (!value || line.problem) continue;
      const target = value.$rewindTo;
      if (typeof target === "string") {
        if (!seen.has(target))
          reports.push(atLine(line, `rewinds to ${target}, which no earlier line holds: the client clears the whole history and cannot resume the session`));
        continue;
      }
      if (typeof value.id === "string") seen.add(value.id);
      const set = value.$set as { messages?: unknown } | undefined;
      if (Array.isArray(set?.messages)) for (const m of set.messages) if (typeof (m as { id?: unknown })?.id === "string") seen.add((m as { id: string }).id);
    }
    return reports;
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const line = context.line(finding.messageId);
    return line
      ? context.deleteLine(line, "dropped the rewind to a message the file does not hold (kept in the backup); the history before it is sent again")
      : [];
  },
};
