import { blockBytes } from "../../model/tokens.js";
import { blocksTokens, type Candidate, type TrimStrategy } from "./budget.js";
import { cachedLayout, recordKey } from "./layout.js";
import { plural } from "../../model/format-count.js";

/**
 * Strategy, the last resort: whole turns (a prompt and every answer to it, so tool calls keep their results) go,
 * oldest first; never the first turn (the task as first stated) nor any turn `--keep-turns` protects.
 */
export const dropOldestTurns: TrimStrategy = {
  id: "drop-oldest-turns",
  name: "drop-oldest-turns",
  description: "context trim: whole oldest turns are taken out (kept in the backup), never the first or the last ones",
  independent: false,
  candidates({ layout }) {
    const candidates: Candidate[] = [];
    for (const turn of layout.turns.slice(1)) {
      const blocks = [...turn.prompt, ...turn.steps.flatMap((s) => s.blocks)];
      const first = blocks[0];
      const id = turn.messageIds[0];
      if (!first || id === undefined) continue;
      if (blocks.some((b) => layout.kept.has(recordKey(b.source)) || layout.intact.has(recordKey(b.source)))) break;
      const saves = { tokens: blocksTokens(blocks), bytes: blocks.reduce((n, b) => n + blockBytes(b), 0) };
      candidates.push({
        key: recordKey(first.source),
        step: turn.steps[0]?.index ?? 0,
        report: { messageId: id, message: `turn of ${plural(turn.messageIds.length, "message")} (${plural(saves.tokens, "token")}): take it out` },
        saves,
      });
    }
    return candidates;
  },
  fix(finding, context) {
    const turn = cachedLayout(context.view.conversation, 0).turns.find((t) => t.messageIds[0] === finding.messageId);
    if (!turn) return [];
    return context.deleteMessages(turn.messageIds, "took out an old turn to fit the context window (all of it is in the backup)");
  },
};
