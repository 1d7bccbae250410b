import type { TranscriptLine } from "../model/transcript.js";
import { atLine } from "./helpers.js";
import type { Report, Rule } from "./rule.js";

/**
 * Codex CLI's paginated rollouts number every line (`ordinal`, from 0 at `session_meta`); its thread-history
 * projection (`thread_history_1.sqlite`) follows those numbers and a resume continues from the last one
 * (docs/research/codex-ordinals.md, measured with Codex 0.171.0):
 *
 * - the last record without an ordinal: Codex refuses to resume the session (`failed to resume local thread recorder:
 *   final paginated rollout record at <path> is missing an ordinal`; openai/codex#45150). The fix gives that record the
 *   next number after the highest before it, as Codex numbers a line it appends.
 * - an ordinal that repeats or goes back (openai/codex#41657, #42027, #44609: a `thread_settings_applied` reusing a
 *   `token_count`'s number): Codex 0.154 and later skip the line in the projection and resume; 0.147–0.153 stop the
 *   projection there for good (`thread history projection for <id> expected ordinal N, got N-1`). A warning without a
 *   fix: numbering the later lines anew would move every ordinal the projection already holds, and the versions
 *   recover is checked against rebuild past the line themselves.
 *
 * A record without an ordinal before the last is not reported: Codex resumes it and its projection skips it (recover
 * inserts lines that way, see stores/codex/fixes.ts).
 */
export const rolloutOrdinal: Rule = {
  id: "rollout-ordinal",
  severity: "error",
  description: "a Codex rollout's line numbers (`ordinal`) that stop the client: the last record without one, or one that repeats or goes back",
  fixedBy: "repair",
  check(view) {
    const lines = (view.transcript?.records.lines ?? []).filter((line) => line.value !== undefined);
    if (!numbered(lines[0])) return [];
    const reports: Report[] = [];
    let highest = -1;
    for (const line of lines) {
      const ordinal = ordinalOf(line);
      if (ordinal === undefined) continue;
      if (ordinal <= highest)
        reports.push({
          ...atLine(
            line,
            `ordinal ${ordinal} ${ordinal === highest ? "repeats the line before" : `goes back (ordinal ${highest} came before)`}: Codex 0.154 and later leave this line out of the thread history (the session still resumes); 0.147–0.153 stop the history here (\`thread history projection … expected ordinal ${highest + 1}, got ${ordinal}\`); numbering the later lines anew would move every ordinal the projection holds, so it is left as it is`,
          ),
          severity: "warning",
          fixable: false,
        });
      highest = Math.max(highest, ordinal);
    }
    const last = lines[lines.length - 1];
    if (last && lines.length > 1 && !numbered(last))
      reports.push(
        atLine(
          last,
          `the last record has no ordinal: Codex refuses to resume the session (\`final paginated rollout record … is missing an ordinal\`); it gets ordinal ${nextOrdinal(lines)}`,
        ),
      );
    return reports;
  },
  fix(finding, context) {
    if (context.kind !== "lines") return [];
    const line = context.line(finding.messageId);
    const lines = context.history.records.lines.filter((l) => l.value !== undefined);
    if (!line?.value || numbered(line) || lines[lines.length - 1] !== line) return [];
    const ordinal = nextOrdinal(lines);
    return context.update(
      line,
      `gave the last record ordinal ${ordinal}, the next after the highest before it, as Codex numbers a line it appends`,
      (value) => {
        withOrdinal(value, ordinal);
      },
    );
  },
};

const ordinalOf = (line: TranscriptLine | undefined): number | undefined => {
  const ordinal = line?.value?.ordinal;
  return typeof ordinal === "number" && Number.isSafeInteger(ordinal) && ordinal >= 0 ? ordinal : undefined;
};
const numbered = (line: TranscriptLine | undefined) => ordinalOf(line) !== undefined;

/** One more than the highest ordinal of the lines. */
function nextOrdinal(lines: readonly TranscriptLine[]): number {
  return lines.reduce((max, line) => Math.max(max, ordinalOf(line) ?? -1), -1) + 1;
}

/** Sets `ordinal` where Codex writes it, right after `timestamp` (serde ignores the order; a reader of the file does not). */
export function withOrdinal(value: Record<string, unknown>, ordinal: number): void {
  const entries = Object.entries(value).filter(([key]) => key !== "ordinal");
  const at = entries.findIndex(([key]) => key === "timestamp") + 1;
  entries.splice(at, 0, ["ordinal", ordinal]);
  for (const key of Object.keys(value)) delete value[key];
  Object.assign(value, Object.fromEntries(entries));
}
