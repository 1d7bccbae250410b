import { readableParts } from "../../model/opencode-records.js";
import { isObject } from "../../model/edit.js";
import { at } from "../helpers.js";
import type { Rule } from "../rule.js";
import { asFarAsNeeded, clearedSaves, markCompacted, trimPass, type Candidate } from "./budget.js";

const CLEARED = "[Old tool result content cleared]";

/** The same input whatever order its keys were written in. */
function normalised(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(normalised).join(",")}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${normalised(value[k])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/**
 * Strategy 3a: a tool called again with the same input (same tool, same normalised input) makes the older outputs
 * redundant: they are marked compacted (sent as a placeholder, kept on disk); the newest stays. Oldest first.
 */
export const dedupeOutputs: Rule = {
  id: "dedupe-outputs",
  severity: "warning",
  description: "context trim: older outputs of a tool called again with the same input are cleared (kept on disk)",
  fixedBy: "trim",
  independentFixes: true,
  check(view, options, earlier) {
    const pass = trimPass("dedupe", view, options, earlier);
    if (!pass) return [];
    const { keep, sent, taken } = pass;
    const newest = new Map<string, string>();
    const calls: { key: string; candidate: Candidate; partId: string }[] = [];
    for (const message of view.opencode?.messages ?? []) {
      if (!sent.has(message.ref.id)) continue;
      for (const { record, part } of readableParts(message)) {
        if (part.type !== "tool") continue;
        const p = part as { tool: string; state: { status: string; input: unknown; time?: { compacted?: number } } };
        if (p.state.status !== "completed" || p.state.time?.compacted !== undefined || record.stripped) continue;
        const key = `${p.tool}\u0000${normalised(p.state.input)}`;
        newest.set(key, record.ref.id);
        if (keep.has(message.ref.id) || taken.has(record.ref.id)) continue;
        const saves = clearedSaves((p.state as { output?: string }).output, record.content.outputChars ?? 0, CLEARED);
        calls.push({
          key,
          partId: record.ref.id,
          candidate: { report: at(record, `${p.tool} was called again later with the same input: clear this older output`), saves },
        });
      }
    }
    const older = calls.filter((c) => newest.get(c.key) !== c.partId).map((c) => c.candidate);
    return asFarAsNeeded(older, pass.deficit, pass.trim.calibration);
  },
  fix(finding, context) {
    if (context.kind !== "records") return [];
    return markCompacted(finding, context, "cleared an output a later identical call repeats (marked compacted; it stays on disk)");
  },
};
