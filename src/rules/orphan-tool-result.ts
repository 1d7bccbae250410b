import { rejections } from "../provider/rejections.js";
import { atBlock, isExempt } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * Transcripts: a tool result whose call is not earlier on the active chain, or that answers a call already
 * answered (`unexpected tool_use_id found in tool_result blocks`). openclaw and Codex drop these, Claude Code sends a
 * user message "(no content)" in its place (2.1.197 and 2.1.332, measured: scenario orphan-result); a call is never
 * invented for them. opencode keeps call and result in one part, so it cannot have one.
 */
export const orphanToolResult: Rule = {
  id: "orphan-tool-result",
  severity: "error",
  description: "transcript tool result with no matching tool call before it (`unexpected tool_use_id found in tool_result blocks`)",
  fixedBy: "repair",
  check(view) {
    const history = view.transcript;
    if (!history) return [];
    // While the chain is cut (broken-parent-chain), calls before the cut are not on it yet: they count as present.
    const elsewhere = history.brokenAt ? callIdsInFile(history.records.lines) : new Set<string>();
    // Calls still waiting for their result, by id (a reused id is duplicate-tool-call-id's: each call takes one).
    const open = new Map<string, number>();
    const reports: Report[] = [];
    for (const { line, blocks } of history.sent) {
      for (const block of blocks) {
        if (block.type === "tool_use") open.set(block.id, (open.get(block.id) ?? 0) + 1);
        if (block.type !== "tool_result") continue;
        const waiting = open.get(block.toolUseId);
        if (waiting !== undefined && waiting > 0) {
          open.set(block.toolUseId, waiting - 1);
          continue;
        }
        if (isExempt(view, line.ref.id) || (waiting === undefined && elsewhere.has(block.toolUseId))) continue;
        const says = rejections(view.api);
        if (waiting === undefined) {
          const copes = view.copes?.orphanResult;
          // An empty id (openclaw/openclaw#21985: a synthetic result made for a call that had none) answers nothing.
          const what =
            block.toolUseId === ""
              ? "tool result with an empty tool call id, which answers no call"
              : `tool result for ${block.toolUseId}, but no call with that id comes before it`;
          const report = atBlock(block, `${what} (${copes ?? `rejected: ${says.orphanResult(block.toolUseId)}`})`);
          // A client that mends it on every resume (Claude Code) is left as it is: dropping the result would change
          // what it sends, and with it the prefix later thinking is bound to.
          reports.push(
            copes ? { ...report, severity: "warning", ...(view.copes?.mendsEveryTime?.includes("orphanResult") ? { fixable: false } : {}) } : report,
          );
        } else {
          const copes = view.copes?.secondResult;
          const report = atBlock(block, `a second tool result for ${block.toolUseId} (${copes ?? `rejected: ${says.secondResult(block.toolUseId)}`})`);
          reports.push(copes ? { ...report, severity: "warning" } : report);
        }
      }
    }
    return reports;
  },
  fix(finding, context) {
    if (context.kind !== "lines" || !finding.fixable) return [];
    const at = context.block(finding);
    return at ? context.dropBlock(at.line, at.index, "dropped the tool result that answers no call (kept in the backup)") : [];
  },
};

function callIdsInFile(lines: readonly { value?: Record<string, unknown> }[]): Set<string> {
  const ids = new Set<string>();
  for (const line of lines) {
    const content = (line.value?.message as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      const b = block as { type?: unknown; id?: unknown };
      if ((b?.type === "tool_use" || b?.type === "toolCall") && typeof b.id === "string") ids.add(b.id);
    }
  }
  return ids;
}
