import type { MessageRecord } from "../../model/opencode-records.js";
import { blockBytes } from "../../model/tokens.js";
import { at, plural } from "../helpers.js";
import type { Rule } from "../rule.js";
import { asFarAsNeeded, blocksTokens, trimPass, turns, type Candidate } from "./budget.js";

/**
 * Strategy 4, the last resort: whole turns (a user message and the answers to it, so tool calls keep their
 * results) go, oldest first; never the first turn (the task as first stated) nor the last --keep-turns.
 */
export const dropOldestTurns: Rule = {
  id: "drop-oldest-turns",
  severity: "warning",
  description: "context trim: whole oldest turns are taken out (kept in the backup), never the first or the last ones",
  fixedBy: "trim",
  check(view, options, earlier) {
    const pass = trimPass(this.id, view, options, earlier);
    if (!pass) return [];
    const { keep } = pass;
    const byMessage = new Map<string, { tokens: number; bytes: number }>();
    for (const message of view.conversation.messages) {
      const tokens = blocksTokens(message.blocks);
      const bytes = message.blocks.reduce((n, b) => n + blockBytes(b), 0);
      // A merged request message is shared by several stored ones: count it for the first.
      const owner = message.sourceMessageIds[0];
      if (owner === undefined) continue;
      const sum = byMessage.get(owner) ?? { tokens: 0, bytes: 0 };
      byMessage.set(owner, { tokens: sum.tokens + tokens, bytes: sum.bytes + bytes });
    }
    const candidates: Candidate[] = [];
    for (const turn of turns(view.opencode?.messages ?? []).slice(1)) {
      if (turn.some((m) => keep.has(m.ref.id))) break;
      const saves = turn.reduce(
        (n, m) => ({ tokens: n.tokens + (byMessage.get(m.ref.id)?.tokens ?? 0), bytes: n.bytes + (byMessage.get(m.ref.id)?.bytes ?? 0) }),
        { tokens: 0, bytes: 0 },
      );
      if (saves.tokens === 0) continue;
      candidates.push({ report: at(turn[0]!, `turn of ${plural(turn.length, "message")} (${plural(saves.tokens, "token")}): take it out`), saves });
    }
    return asFarAsNeeded(candidates, pass.deficit, pass.trim.calibration);
  },
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const first = context.message(finding.messageId);
    if (!first) return [];
    const all = context.session.messages;
    const start = all.indexOf(first);
    const turn: MessageRecord[] = [first];
    for (let i = start + 1; i < all.length && all[i]!.info?.role !== "user"; i++) turn.push(all[i]!);
    return turn.flatMap((message) => context.deleteMessage(message, "took out an old turn to fit the context window (all of it is in the backup)"));
  },
};
