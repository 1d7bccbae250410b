import { readableParts } from "../../model/opencode-records.js";
import { isObject } from "../../model/edit.js";
import { at } from "../helpers.js";
import type { Rule } from "../rule.js";
import { asFarAsNeeded, tokensOf, trimPass, turns, type Candidate } from "./budget.js";

/** Dynamic context pruning's default: errored calls older than this many turns lose their input. */
const PURGE_AFTER_TURNS = 4;

/** Strategy 3b: the inputs of errored tool calls more than 4 turns old are emptied (a failed call's input is dead weight). */
export const purgeErrors: Rule = {
  id: "purge-errors",
  severity: "warning",
  description: "context trim: inputs of errored tool calls older than 4 turns are emptied",
  fixedBy: "trim",
  independentFixes: true,
  check(view, options, earlier) {
    const pass = trimPass(this.id, view, options, earlier, PURGE_AFTER_TURNS);
    if (!pass) return [];
    const { keep, sent } = pass;
    const candidates: Candidate[] = [];
    for (const turn of turns(view.opencode?.messages ?? [])) {
      for (const message of turn) {
        if (keep.has(message.ref.id) || !sent.has(message.ref.id)) continue;
        for (const { record, part } of readableParts(message)) {
          const state = (part as { state?: { status?: string } }).state;
          const chars = (record.content.inputChars ?? 0) - 2;
          if (part.type !== "tool" || state?.status !== "error" || chars <= 0) continue;
          const input = (state as { input?: unknown }).input;
          const bytes = Math.max(0, Buffer.byteLength(JSON.stringify(input ?? {})) - 2);
          candidates.push({
            report: at(record, `errored ${(part as { tool: string }).tool} call more than ${PURGE_AFTER_TURNS} turns old: empty its input`),
            saves: { tokens: tokensOf(chars), bytes },
          });
        }
      }
    }
    return asFarAsNeeded(candidates, pass.deficit, pass.trim.calibration);
  },
  fix(finding, context) {
    if (context.kind !== "records") return [];
    const part = context.part(finding.partId);
    if (!part) return [];
    return context.update(part, "emptied the input of an old failed call (the input is in the backup)", (value) => {
      const state = value.state;
      if (isObject(state)) state.input = {};
    });
  },
};
