import { atBlock } from "../helpers.js";
import { clearedSaves, tokensOf, type Candidate, type TrimStrategy } from "./budget.js";
import { recordKey, resultsOf } from "./layout.js";
import { plural } from "../../model/format-count.js";

/** opencode's own prune constants (session/compaction.ts, reference opencode.md §4). */
const PRUNE_PROTECT_TOKENS = 40_000;
const PROTECTED_TOOLS = new Set(["skill", "artifact"]);
/** What opencode sends for a compacted output, and what Claude Code's microcompaction writes. */
export const CLEARED = "[Old tool result content cleared]";

/**
 * Strategy: opencode's own prune. In older turns, walking newest → oldest, the newest 40,000 tokens of tool output
 * stay and older outputs are cleared the agent's own way (opencode: marked compacted, the output stays on disk;
 * a transcript: Claude Code's microcompaction text). In the running turn, outputs older than the last steps are
 * cleared oldest first. `skill` and `artifact` outputs never.
 */
export const pruneOldOutputs: TrimStrategy = {
  id: "prune-old-outputs",
  name: "prune-old-outputs",
  description: "context trim: old tool outputs cleared the agent's own way (opencode: marked compacted, the output stays on disk)",
  independent: true,
  candidates({ layout, region }) {
    const all = resultsOf(layout);
    let protectedTokens = region === "older" ? 0 : PRUNE_PROTECT_TOKENS;
    const candidates: Candidate[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const { block, step } = all[i]!;
      if (block.isError || block.text === CLEARED) continue;
      const key = recordKey(block.source);
      // The protected window counts the outputs of the region being pruned (opencode: those past the kept turns).
      if (region === "older" && layout.kept.has(key)) continue;
      if (protectedTokens < PRUNE_PROTECT_TOKENS) {
        protectedTokens += tokensOf(block.chars);
        continue;
      }
      const tool = layout.calls.get(block.toolUseId)?.name ?? "tool";
      if (PROTECTED_TOOLS.has(tool)) continue;
      candidates.push({
        key,
        step: step.index,
        report: atBlock(block, `${tool} output of ${plural(block.chars, "character")} from an earlier step: clear it`),
        saves: clearedSaves(block.text, block.chars, CLEARED),
      });
    }
    return candidates.reverse();
  },
  fix(finding, context) {
    return context.clearResult(finding, "cleared the old tool output the agent's own way (opencode: marked compacted; the output is in the backup)");
  },
};
