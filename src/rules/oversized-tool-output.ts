import { at, atBlock, messages, parts } from "./helpers.js";
import type { Report, Rule } from "./rule.js";
import { formatCount, plural } from "../model/format-count.js";

/** Compacted outputs are not sent (opencode sends a placeholder), so they never count. */
export const oversizedToolOutput: Rule = {
  id: "oversized-tool-output",
  severity: "warning",
  description: "one tool output above a threshold (default 50,000 chars, --max-output-chars)",
  fixedBy: "trim",
  check(view, options) {
    const reports: Report[] = [];
    for (const { blocks } of view.transcript?.sent ?? []) {
      for (const block of blocks) {
        if (block.type === "tool_result" && block.chars > options.maxOutputChars) {
          reports.push(
            atBlock(block, `tool result for ${block.toolUseId} is ${plural(block.chars, "character")} (limit ${formatCount(options.maxOutputChars)})`),
          );
        }
      }
    }
    for (const message of messages(view)) {
      for (const { record, part } of parts(message)) {
        if (part.type !== "tool") continue;
        const state = (part as { state: { status: string; time?: { compacted?: number } } }).state;
        const chars = record.content.outputChars ?? 0;
        if (state.status !== "completed" || state.time?.compacted !== undefined || chars <= options.maxOutputChars) continue;
        reports.push(at(record, `${(part as { tool: string }).tool} output is ${plural(chars, "character")} (limit ${formatCount(options.maxOutputChars)})`));
      }
    }
    return reports;
  },
};
