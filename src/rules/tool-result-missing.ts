import { rejections } from "../provider/rejections.js";
import { atBlock, isExempt } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * Transcripts: a tool call with no result anywhere after it on the active chain. The agent was interrupted mid-call
 * and every later request is rejected. opencode's interrupted calls are tool-call-interrupted's (their state is
 * stored on the call itself).
 */
export const toolResultMissing: Rule = {
  id: "tool-result-missing",
  severity: "error",
  description: "transcript tool call with no tool result anywhere after it (`tool_use` ids were found without `tool_result` blocks)",
  fixedBy: "repair",
  check(view) {
    const history = view.transcript;
    if (!history) return [];
    const lastResult = new Map<string, number>();
    history.sent.forEach(({ blocks }, i) => {
      for (const block of blocks) if (block.type === "tool_result") lastResult.set(block.toolUseId, i);
    });
    const reports: Report[] = [];
    history.sent.forEach(({ line, blocks }, i) => {
      if (isExempt(view, line.ref.id)) return;
      for (const block of blocks) {
        if (block.type !== "tool_use" || (lastResult.get(block.id) ?? -1) > i) continue;
        const copes = view.copes?.missingResult;
        const outcome = copes ?? `rejected: ${rejections(view.api).resultMissing(block.id)}`;
        const lost = history.records.lines.find((l) => l.problem?.kind === "unreadable" && l.ref.line > line.ref.line);
        const cause = lost ? `its result may have been on unreadable line ${lost.ref.line}, which is lost` : "the agent was interrupted mid-call";
        const report = atBlock(block, `${block.name} call ${block.id} has no tool result after it (${cause}; ${outcome})`);
        reports.push(copes ? { ...report, severity: "warning", ...(view.copes?.mendsEveryTime?.includes("missingResult") ? { fixable: false } : {}) } : report);
      }
    });
    return reports;
  },
  /** The result the agent itself writes for an interrupted call (its store knows which); none where the client mends it every time. */
  fix(finding, context) {
    if (context.kind !== "lines" || !finding.fixable) return [];
    const at = context.block(finding);
    return at?.line.value ? context.closeInterruptedCall(at.line, at.index) : [];
  },
};
