import { readableParts } from "../../model/opencode-records.js";
import { isObject } from "../../model/edit.js";
import { at, atBlock, plural } from "../helpers.js";
import { rewriteOutput, sentOutputs } from "./transcript-outputs.js";
import type { Rule } from "../rule.js";
import { asFarAsNeeded, tokensOf, trimPass, type Candidate } from "./budget.js";

export const truncationMarker = (removed: number) => `\n[… truncated ${removed.toLocaleString("en-US")} characters to fit the context window …]\n`;

/** Head and tail of a long output around a marker, `max` characters in all, so a second trim finds nothing to do. */
export function truncated(output: string, max: number): string {
  const marker = truncationMarker(output.length);
  const room = Math.max(0, max - marker.length);
  let head = Math.ceil(room * 0.6);
  let tail = room - head;
  // Never cut a surrogate pair in half: a lone half makes the request body invalid JSON for the provider.
  if (head > 0 && isHigh(output.charCodeAt(head - 1))) head--;
  if (tail > 0 && isLow(output.charCodeAt(output.length - tail))) tail--;
  return `${output.slice(0, head)}${truncationMarker(output.length - head - tail)}${tail > 0 ? output.slice(-tail) : ""}`;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** Below this, a truncated output would be little more than its marker. */
export const MIN_OUTPUT_CHARS = 200;

/** Strategy 1: outputs over --max-output-chars keep their head and tail, largest first. */
export const truncateOutputs: Rule = {
  id: "truncate-outputs",
  severity: "warning",
  description: "context trim: tool outputs over --max-output-chars keep a head and a tail around a marker",
  fixedBy: "trim",
  independentFixes: true,
  check(view, options, earlier) {
    const pass = trimPass(this.id, view, options, earlier);
    if (!pass) return [];
    const { trim, keep, sent } = pass;
    const candidates: Candidate[] = [];
    for (const { block } of view.transcript ? sentOutputs(view.transcript, keep) : []) {
      if (block.chars <= trim.maxOutputChars) continue;
      const kept = truncated(block.text, trim.maxOutputChars);
      const saves = { tokens: tokensOf(block.chars - kept.length), bytes: Buffer.byteLength(block.text) - Buffer.byteLength(kept) };
      candidates.push({
        report: atBlock(block, `tool result of ${plural(block.chars, "character")}: keep ${trim.maxOutputChars.toLocaleString("en-US")}`),
        saves,
      });
    }
    for (const message of view.opencode?.messages ?? []) {
      if (keep.has(message.ref.id) || !sent.has(message.ref.id)) continue;
      for (const { record, part } of readableParts(message)) {
        const state = (part as { state?: { status?: string; time?: { compacted?: number } } }).state;
        const chars = record.content.outputChars ?? 0;
        if (part.type !== "tool" || state?.status !== "completed" || state.time?.compacted !== undefined || chars <= trim.maxOutputChars) continue;
        const output = (state as { output?: string }).output;
        const kept = output !== undefined ? truncated(output, trim.maxOutputChars) : undefined;
        const saves = {
          tokens: tokensOf(chars - (kept?.length ?? trim.maxOutputChars)),
          bytes: output !== undefined && kept !== undefined ? Buffer.byteLength(output) - Buffer.byteLength(kept) : chars - trim.maxOutputChars,
        };
        candidates.push({
          report: at(record, `${(part as { tool: string }).tool} output of ${plural(chars, "character")}: keep ${trim.maxOutputChars.toLocaleString("en-US")}`),
          saves,
        });
      }
    }
    candidates.sort((a, b) => (trim.maxBytes !== undefined ? b.saves.bytes - a.saves.bytes : b.saves.tokens - a.saves.tokens));
    return asFarAsNeeded(candidates, pass.deficit, trim.calibration);
  },
  fix(finding, context) {
    if (context.kind === "lines") {
      const max = context.options.trim?.maxOutputChars;
      if (max === undefined) return [];
      return rewriteOutput(
        finding,
        context,
        `kept the first and last characters of the tool result, ${max.toLocaleString("en-US")} in all (the whole result is in the backup)`,
        (text) => truncated(text, max),
      );
    }
    const part = context.part(finding.partId);
    const max = context.options.trim?.maxOutputChars;
    if (!part || max === undefined) return [];
    return context.update(
      part,
      `kept the first and last characters of the output, ${max.toLocaleString("en-US")} in all (the whole output is in the backup)`,
      (value) => {
        const state = value.state;
        if (isObject(state) && typeof state.output === "string") state.output = truncated(state.output, max);
      },
    );
  },
};
