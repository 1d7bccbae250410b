import { atLine } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * Claude Code: a `summary` record whose `leafUuid` is in no line of the file. Claude Code writes summaries of other
 * sessions into a file (anthropics/claude-code#2597); such a one titles the session with someone else's work.
 */
export const foreignSummary: Rule = {
  id: "foreign-summary",
  severity: "warning",
  description: "Claude Code summary whose leafUuid names no line of this file (a summary of another session)",
  fixedBy: "repair",
  check(view) {
    const history = view.transcript;
    if (history?.records.dialect !== "claude") return [];
    const reports: Report[] = [];
    for (const line of history.records.lines) {
      const leaf = line.value?.type === "summary" && !line.problem ? line.value.leafUuid : undefined;
      if (typeof leaf === "string" && !history.byUuid.has(leaf))
        reports.push(atLine(line, `summary "${String(line.value!.summary ?? "").slice(0, 60)}" names leaf ${leaf}, which is in no line of this file`));
    }
    return reports;
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const line = context.line(finding.messageId);
    return line ? context.deleteLine(line, "dropped the summary of another session (kept in the backup)") : [];
  },
};
