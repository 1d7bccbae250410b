import { blockBytes, blockTokens } from "../../model/tokens.js";
import { atBlock } from "../helpers.js";
import type { Candidate, TrimStrategy } from "./budget.js";
import { recordKey } from "./layout.js";
import { plural } from "../../model/format-count.js";

/**
 * Strategy: thinking blocks of turns before the latest one go whole (the Anthropic API accepts their absence there;
 * in the latest turn it forbids any change). A thinking block is never edited, and a step that holds nothing else
 * keeps it, so no message is left empty.
 */
export const stripOldThinking: TrimStrategy = {
  id: "strip-old-thinking",
  name: "strip-old-thinking",
  description: "context trim: thinking blocks of turns before the latest one are removed whole (kept in the backup)",
  independent: false,
  candidates({ layout }) {
    const candidates: Candidate[] = [];
    const latest = layout.turns.length - 1;
    for (const step of layout.steps) {
      if (step.turn >= latest || step.blocks.every((b) => b.type === "thinking")) continue;
      for (const block of step.blocks) {
        if (block.type !== "thinking") continue;
        candidates.push({
          key: recordKey(block.source),
          step: step.index,
          report: atBlock(block, `thinking of ${plural(block.chars, "character")} in an earlier turn: remove it`),
          saves: { tokens: blockTokens(block), bytes: blockBytes(block) },
        });
      }
    }
    return candidates;
  },
  fix(finding, context) {
    return context.dropThinking(finding, "removed a thinking block of an earlier turn, whole (the API accepts its absence; it is in the backup)");
  },
};
