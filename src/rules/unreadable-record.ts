import type { TranscriptLine } from "../model/transcript.js";
import { atLine, recordsWithProblem } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

export const unreadableRecord: Rule = {
  id: "unreadable-record",
  severity: "error",
  description: "a record (message, part, transcript line) whose stored JSON does not parse, is truncated, or is not valid UTF-8",
  fixedBy: "repair",
  check(view) {
    if (view.transcript) return transcriptLines(view.transcript.records.lines, view.copes?.unreadableLine);
    return recordsWithProblem(view, "unreadable").map(({ report, label, detail }) => ({ ...report, message: `${label} record: ${detail}` }));
  },
  /**
   * A transcript line: what parses is kept (a concatenation split apart, a record after a NUL run); the rest goes.
   * A session record (JSON tree) is left alone: sessions are opencode's index, rebuilding one is not a repair. The
   * backup keeps every byte.
   */
  fix(finding, context) {
    if (context.kind === "lines") {
      const line = context.line(finding.messageId);
      if (!line?.problem) return [];
      const salvage = line.salvage ?? [];
      const kept = salvage.length === 0 ? "nothing in it parses" : `kept the ${salvage.length === 1 ? "record" : `${salvage.length} records`} that parse`;
      return context.split(
        line,
        salvage.map((v) => structuredClone(v)),
        `${line.problem.detail}: ${kept}, dropped the rest (the original bytes are in the backup)`,
      );
    }
    const part = context.part(finding.partId);
    if (part) return context.salvagePart(part);
    const message = finding.partId === undefined ? context.message(finding.messageId) : undefined;
    return message ? context.salvageMessage(message) : [];
  },
};

/**
 * Every bad line of a transcript, wherever it is (the agents skip or stop at them). A blank line is harmless to
 * both agents: a warning; so is any bad line to a client that skips them (Codex). A record of a type recover does not know is kept verbatim: a warning with no fix.
 */
function transcriptLines(lines: readonly TranscriptLine[], skips: string | undefined): Report[] {
  const reports: Report[] = [];
  for (const line of lines) {
    if (line.problem?.kind === "unreadable") {
      const report = atLine(line, skips && !line.losesSession ? `${line.problem.detail}; ${skips}` : line.problem.detail);
      if (line.problem.reason === "empty" || (skips && !line.losesSession)) report.severity = "warning";
      reports.push(report);
    } else if (line.role === "unknown" && line.value) {
      const type = typeof line.value.type === "string" ? `type "${line.value.type}"` : "no type";
      reports.push({ ...atLine(line, `a record of ${type}, unknown to recover; kept verbatim`), severity: "warning", fixable: false });
    }
  }
  return reports;
}
