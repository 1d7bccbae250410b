import { atBlock } from "../helpers.js";
import { tokensOf, type Candidate, type TrimStrategy } from "./budget.js";
import { recordKey, resultsOf } from "./layout.js";
import { formatCount, plural } from "../../model/format-count.js";

export const truncationMarker = (removed: number) => `\n[… truncated ${formatCount(removed)} characters to fit the context window …]\n`;

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

/** Strategy: tool results over --max-output-chars keep their head and tail around a marker, largest first. */
export const truncateOutputs: TrimStrategy = {
  id: "truncate-outputs",
  name: "truncate-outputs",
  description: "context trim: tool outputs over --max-output-chars keep a head and a tail around a marker",
  independent: true,
  candidates({ layout, trim }) {
    const max = trim.maxOutputChars;
    const candidates: Candidate[] = [];
    for (const { block, step } of resultsOf(layout)) {
      if (block.text === undefined || block.text.length <= max) continue;
      const kept = truncated(block.text, max);
      candidates.push({
        key: recordKey(block.source),
        step: step.index,
        report: atBlock(block, `tool output of ${plural(block.text.length, "character")}: keep ${formatCount(max)}`),
        saves: { tokens: tokensOf(block.text.length - kept.length), bytes: Buffer.byteLength(block.text) - Buffer.byteLength(kept) },
      });
    }
    return candidates.sort((a, b) => (trim.maxBytes !== undefined ? b.saves.bytes - a.saves.bytes : b.saves.tokens - a.saves.tokens));
  },
  fix(finding, context) {
    const max = context.options.trim?.maxOutputChars;
    if (max === undefined) return [];
    return context.rewriteResult(
      finding,
      (text) => truncated(text, max),
      `kept the first and last characters of the tool output, ${formatCount(max)} in all (the whole output is in the backup)`,
    );
  },
};
