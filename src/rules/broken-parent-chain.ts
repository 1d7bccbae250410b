import { atLine } from "./helpers.js";
import type { TranscriptLine } from "../model/transcript.js";
import type { Rule } from "./rule.js";

/**
 * Transcripts: the active chain reaches a line whose parent is in no line of the file (a torn or lost record, a
 * link into another file). Resuming walks back from the last message and stops there: everything before is gone
 * from the conversation. The fix relinks it to the previous record in file order (claude-session-mcp's approach).
 */
export const brokenParentChain: Rule = {
  id: "broken-parent-chain",
  severity: "error",
  description: "transcript line whose parent link names no line of the file: the resumed history stops there",
  fixedBy: "repair",
  check(view) {
    const history = view.transcript;
    const broken = history?.brokenAt;
    if (!history || !broken) return [];
    const field = history.records.dialect === "claude" ? "parentUuid" : "parentId";
    const lost = history.records.lines.filter((l) => l.ref.line < broken.ref.line && (l.role === "message" || l.role === "structure")).length;
    return [
      atLine(
        broken,
        `${field} ${String(broken.parent)} is in no line of this file: resuming stops here and drops ${lost} earlier message line${lost === 1 ? "" : "s"}`,
      ),
    ];
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const line = context.line(finding.messageId);
    if (!line) return [];
    const lines = context.history.records.lines;
    const chainSet = new Set(context.history.chain);
    let previous: TranscriptLine | null = null;
    for (let i = lines.indexOf(line) - 1; i >= 0; i--) {
      const candidate = lines[i]!;
      // Never onto the chain's own later part: that would close a loop.
      if (candidate.uuid !== undefined && !candidate.sidechain && !chainSet.has(candidate)) {
        previous = candidate;
        break;
      }
    }
    return context.relinkOnto(
      line,
      previous,
      previous === null ? "made the line a root: no earlier record to link it to" : `relinked to the previous record in file order (${previous.uuid})`,
    );
  },
};
