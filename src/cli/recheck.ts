/**
 * A repair that says done is done: once the plan is written, the written sessions are read back from the store,
 * opened afresh (an open store keeps its index of what was there before the write), and scanned with the rules a
 * scan runs. What the written records hold is what the agent will send, whatever the plan expected: an error still
 * found there is reported as left (exit 1), never claimed as repaired.
 */
import { RecoverError } from "../errors.js";
import type { Finding, Rule, RuleOptions } from "../rules/rule.js";
import { scanSession } from "../scan/scan.js";
import { openStore } from "../stores/discover.js";
import type { SessionStore } from "../stores/store.js";

export interface Recheck {
  /** The rules a scan runs over the written sessions. */
  rules: readonly Rule[];
  /** As the repair ran them; `now` is the recheck's own time, as for a scan run then. */
  options: Omit<RuleOptions, "now">;
}

/** The same finding: by its record, or by its words (a line without an id is named by its place, which a write moves). */
const sameFinding = (a: Finding, b: Finding) => a.rule === b.rule && ((a.messageId === b.messageId && a.partId === b.partId) || a.message === b.message);

/**
 * Per written session, the errors a scan of it finds now that `listed` (what the plan said it left) does not name.
 * A session that cannot be read back is itself an error left: the write is done, so this never throws.
 */
export function errorsLeftAfterWrite(
  store: SessionStore,
  sessions: readonly { id: string; listed: readonly Finding[] }[],
  recheck: Recheck,
): Map<string, Finding[]> {
  const left = new Map<string, Finding[]>();
  const unreadable = (id: string, error: unknown): Finding[] => [
    {
      rule: "unreadable-record",
      severity: "error",
      sessionId: id,
      fixable: false,
      message: `the repaired session could not be read back to check it: ${error instanceof Error ? error.message : String(error)}`,
    },
  ];
  let fresh: SessionStore;
  try {
    // The repair may have removed the store's last session (an empty chat file): the store is still this one.
    fresh = openStore({ store: store.info.readFrom ?? store.info.part ?? store.info.path, format: store.info.format, emptyAllowed: true });
  } catch (error) {
    for (const { id } of sessions) left.set(id, unreadable(id, error));
    return left;
  }
  try {
    for (const { id, listed } of sessions) {
      try {
        const { findings } = scanSession(fresh, id, { ...recheck.options, now: Date.now(), rules: recheck.rules, mode: "lean" });
        const errors = findings.filter((f) => f.severity === "error" && !listed.some((l) => sameFinding(l, f)));
        if (errors.length > 0) left.set(id, errors);
      } catch (error) {
        if (!(error instanceof RecoverError)) throw error;
        // The repair took out every record the session had left (a stray session's orphans): nothing is left of it.
        if (error.code === "session-not-found") continue;
        left.set(id, unreadable(id, error));
      }
    }
  } finally {
    fresh.close();
  }
  return left;
}
