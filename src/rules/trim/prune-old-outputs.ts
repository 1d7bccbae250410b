import { readableParts, type PartRecord } from "../../model/opencode-records.js";
import type { TranscriptHistory } from "../../model/session-view.js";
import { at, atBlock, plural } from "../helpers.js";
import type { Rule } from "../rule.js";
import { asFarAsNeeded, clearedSaves, markCompacted, tokensOf, trimPass, type Candidate } from "./budget.js";
import { rewriteOutput, sentOutputs } from "./transcript-outputs.js";

/** opencode's own prune constants (session/compaction.ts, reference opencode.md §4). */
const PRUNE_PROTECT_TOKENS = 40_000;
const PROTECTED_TOOLS = new Set(["skill", "artifact"]);
const CLEARED = "[Old tool result content cleared]";

/**
 * Strategy 2: opencode's own prune. Walking newest → oldest past the last two user turns (or --keep-turns), the
 * newest 40,000 tokens of tool output stay; older completed outputs are marked compacted (`state.time.compacted`),
 * which opencode sends as "[Old tool result content cleared]" while the output itself stays on disk. Oldest first.
 */
export const pruneOldOutputs: Rule = {
  id: "prune-old-outputs",
  severity: "warning",
  description: "context trim: old tool outputs marked compacted, as opencode's own prune does (the output stays on disk)",
  fixedBy: "trim",
  independentFixes: true,
  check(view, options, earlier) {
    const pass = trimPass(this.id, view, options, earlier, 2);
    if (!pass) return [];
    const { keep, sent, taken } = pass;
    if (view.transcript) return asFarAsNeeded(transcriptCandidates(view.transcript, keep, taken), pass.deficit, pass.trim.calibration);
    const messages = view.opencode?.messages ?? [];
    let protectedTokens = 0;
    const candidates: Candidate[] = [];
    walk: for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i]!;
      if (message.info?.role === "assistant" && message.info.summary === true) break;
      if (keep.has(message.ref.id) || !sent.has(message.ref.id)) continue;
      const parts = readableParts(message);
      for (let j = parts.length - 1; j >= 0; j--) {
        const { record, part } = parts[j]!;
        if (part.type !== "tool") continue;
        const state = (part as { state: { status: string; time?: { compacted?: number } } }).state;
        if (state.status !== "completed") continue;
        // opencode stops at the first output a previous prune compacted; this trim's own compactions (stamped with
        // its time) are not a previous prune and must not end the walk of its later passes.
        if (state.time?.compacted === options.now) continue;
        if (state.time?.compacted !== undefined) break walk;
        const tokens = tokensOf(record.content.outputChars ?? 0);
        if (protectedTokens < PRUNE_PROTECT_TOKENS) {
          protectedTokens += tokens;
          continue;
        }
        if (PROTECTED_TOOLS.has((part as { tool: string }).tool) || taken.has(record.ref.id)) continue;
        candidates.push(candidate(record, (part as { tool: string }).tool));
      }
    }
    return asFarAsNeeded(candidates.reverse(), pass.deficit, pass.trim.calibration);
  },
  /** Claude Code clears old results with this same text (its microcompaction); the result stays in the backup. */
  fix(finding, context) {
    if (context.kind === "lines")
      return rewriteOutput(
        finding,
        context,
        "cleared the old tool result, as Claude Code's own microcompaction does (the result is in the backup)",
        () => CLEARED,
      );
    return markCompacted(finding, context, "marked the old output compacted, as opencode's prune does: it is sent as a placeholder and stays on disk");
  },
};

function candidate(record: PartRecord, tool: string): Candidate {
  const output = (record.part as { state?: { output?: string } } | undefined)?.state?.output;
  const chars = record.content.outputChars ?? 0;
  return { report: at(record, `${tool} output of ${plural(chars, "character")} from an older turn: clear it`), saves: clearedSaves(output, chars, CLEARED) };
}

/** The same walk over a transcript's results: newest 40,000 tokens stay, older ones are cleared, oldest first. */
function transcriptCandidates(history: TranscriptHistory, keep: ReadonlySet<string>, taken: ReadonlySet<string | undefined>): Candidate[] {
  const outputs = sentOutputs(history, keep);
  let protectedTokens = 0;
  const candidates: Candidate[] = [];
  for (let i = outputs.length - 1; i >= 0; i--) {
    const { block } = outputs[i]!;
    if (block.text === CLEARED) continue;
    const tokens = tokensOf(block.chars);
    if (protectedTokens < PRUNE_PROTECT_TOKENS) {
      protectedTokens += tokens;
      continue;
    }
    if (taken.has(block.source.id)) continue;
    candidates.push({
      report: atBlock(block, `tool result of ${plural(block.chars, "character")} from an older turn: clear it`),
      saves: clearedSaves(block.text, block.chars, CLEARED),
    });
  }
  return candidates.reverse();
}
