import { atLine } from "./helpers.js";
import type { Rule } from "./rule.js";

const UNFINISHED = new Set(["error", "aborted", "length"]);

/**
 * openclaw: the history ends on an assistant turn that did not finish (error, aborted, cut at max tokens).
 * openclaw's own repair trims such trailing turns, because a provider that resumes by continuing the last message
 * rejects it (prefill). A turn that ended normally is a session at rest, not damage. The fix removes the turn, so
 * it runs only when asked (`--rule trailing-assistant`).
 */
export const trailingAssistant: Rule = {
  id: "trailing-assistant",
  severity: "warning",
  description: "openclaw history that ends on an unfinished assistant turn (error, aborted, max tokens)",
  fixedBy: "repair",
  repairOnRequest: true,
  check(view) {
    const history = view.transcript;
    if (history?.records.dialect !== "openclaw") return [];
    const last = history.sent.at(-1);
    const message = last?.line.value?.message as { stopReason?: unknown } | undefined;
    if (last?.role !== "assistant" || last.line !== history.chain.at(-1) || !UNFINISHED.has(String(message?.stopReason))) return [];
    return [atLine(last.line, `the history ends on an assistant turn that stopped with "${String(message!.stopReason)}"`)];
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const line = context.line(finding.messageId);
    return line ? context.deleteLine(line, "removed the unfinished trailing assistant turn, as openclaw's own repair does (kept in the backup)") : [];
  },
};
