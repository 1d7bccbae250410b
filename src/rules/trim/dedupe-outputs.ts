import { isObject } from "../../model/edit.js";
import { atBlock } from "../helpers.js";
import { clearedSaves, type Candidate, type TrimStrategy } from "./budget.js";
import { recordKey, resultsOf } from "./layout.js";
import { CLEARED } from "./prune-old-outputs.js";

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
 * Strategy: a tool called again with the same input (same tool, same normalised input) makes the older outputs
 * redundant: they are cleared the agent's own way (as prune clears); the newest stays. Oldest first.
 */
export const dedupeOutputs: TrimStrategy = {
  id: "dedupe-outputs",
  name: "dedupe",
  description: "context trim: older outputs of a tool called again with the same input are cleared (kept on disk)",
  independent: true,
  candidates({ layout }) {
    const newest = new Map<string, string>();
    const calls: { same: string; id: string; candidate: Candidate }[] = [];
    for (const { block, step } of resultsOf(layout)) {
      const call = layout.calls.get(block.toolUseId);
      if (!call || call.input === undefined || block.isError || block.text === CLEARED) continue;
      const same = `${call.name}\u0000${normalised(call.input)}`;
      newest.set(same, block.source.id);
      calls.push({
        same,
        id: block.source.id,
        candidate: {
          key: recordKey(block.source),
          step: step.index,
          report: atBlock(block, `${call.name} was called again later with the same input: clear this older output`),
          saves: clearedSaves(block.text, block.chars, CLEARED),
        },
      });
    }
    return calls.filter((c) => newest.get(c.same) !== c.id).map((c) => c.candidate);
  },
  fix(finding, context) {
    return context.clearResult(finding, "cleared an output a later identical call repeats (the output is in the backup)");
  },
};
