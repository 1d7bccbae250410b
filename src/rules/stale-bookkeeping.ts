import { atLine } from "./helpers.js";
import type { Rule } from "./rule.js";

/**
 * A record whose bookkeeping in the store disagrees with it (TranscriptLine.stale): a database that derives rows from
 * its records (an index of ids and parents, the active path, a recorded length, the row a session key points at) and
 * holds rows that no longer agree. The client then refuses the session or reads another history than the records
 * hold. The record is kept as it is; writing it anew has the store derive its bookkeeping again.
 */
export const staleBookkeeping: Rule = {
  id: "stale-bookkeeping",
  severity: "error",
  description: "what the store derives from a record (ids, parents, active path, lengths, session pointers) disagrees with the record",
  fixedBy: "repair",
  check(view) {
    const lines = view.transcript?.records.lines ?? [];
    return lines.flatMap(({ stale, ...line }) =>
      stale === undefined ? [] : [{ ...atLine(line as (typeof lines)[number], stale.detail), ...(stale.fixable ? {} : { fixable: false }) }],
    );
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const line = context.line(finding.messageId);
    if (!line?.value || !line.stale?.fixable) return [];
    // The agent's own index disagrees with the files: the row is set to what they say, the files stay as they are.
    if (line.stale.index)
      return [{ op: "set-index", row: line.stale.index, reason: "the agent's index names the session's files where they are not: set to where they are" }];
    return context.update(line, `${line.stale.detail}: the record is written anew, unchanged, and what the store derives from it with it`, () => {});
  },
};
