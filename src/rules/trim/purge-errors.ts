import { atBlock } from "../helpers.js";
import { tokensOf, type Candidate, type TrimStrategy } from "./budget.js";
import { recordKey, resultsOf } from "./layout.js";

/** Dynamic context pruning's default: errored calls older than this many turns lose their input. */
const PURGE_AFTER_TURNS = 4;

/** Strategy: the inputs of errored tool calls are emptied (a failed call's input is dead weight); in older turns, only past the last 4. */
export const purgeErrors: TrimStrategy = {
  id: "purge-errors",
  name: "purge-errors",
  description: "context trim: inputs of errored tool calls older than 4 turns are emptied",
  independent: true,
  candidates({ layout, region }) {
    const candidates: Candidate[] = [];
    for (const { block, step } of resultsOf(layout)) {
      const call = layout.calls.get(block.toolUseId);
      if (!block.isError || !call || call.input === undefined) continue;
      if (region === "older" && step.turn >= layout.turns.length - PURGE_AFTER_TURNS) continue;
      const input = JSON.stringify(call.input);
      if (input.length <= 2) continue;
      candidates.push({
        key: recordKey(call.source),
        step: step.index,
        report: atBlock(call, `errored ${call.name} call: empty its input`),
        saves: { tokens: tokensOf(input.length - 2), bytes: Buffer.byteLength(input) - 2 },
      });
    }
    return candidates;
  },
  fix(finding, context) {
    return context.emptyInput(finding, "emptied the input of an old failed call (the input is in the backup)");
  },
};
