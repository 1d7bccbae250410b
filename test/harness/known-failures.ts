// KNOWN FAILURES of the fuzz loop's properties (fuzz-support.ts): product bugs the harness found whose fixes are in
// flight in other branches. A failure that matches an entry is tallied (printed after each loop) instead of failing
// the run; every other failure fails it. Each entry carries the minimal counterexample fast-check shrank it to and the
// seed that found it. When a fix merges, delete its entry: the property then holds the fix in place.
import type { HarnessFormat } from "./fuzz-damage.js";

/** One broken property of one case, as fuzz-support.ts reports it. */
export interface Failure {
  property: "no-crash" | "json-parses" | "no-hang" | "rescan-clean" | "restore-exact" | "no-silent-drop" | "harness";
  detail: string;
}

export interface KnownFailure {
  id: string;
  formats: readonly HarnessFormat[];
  property: Failure["property"];
  /** Matched against the failure's detail: narrow enough to let any other failure of the property through. */
  detail: RegExp;
  /** The run that found it. */
  foundBy: string;
  /**
   * Per format, the minimal damage fast-check shrank it to, as JSON (a Damage[] on the fuzz loop's base store of that
   * format): known-failures.test.ts replays each and checks it still fails so.
   */
  counterexamples: Partial<Record<HarnessFormat, string>>;
  why: string;
}

export const KNOWN_FAILURES: readonly KnownFailure[] = [
  // Empty: the seven failures the harness found (issue 14) are fixed and their properties hold them in place.
];

export function knownFailure(format: HarnessFormat, failure: Failure): KnownFailure | undefined {
  return KNOWN_FAILURES.find((k) => k.formats.includes(format) && k.property === failure.property && k.detail.test(failure.detail));
}

/**
 * Failures the harness found (issue 14) and that are fixed: each minimal counterexample is replayed by
 * known-failures.test.ts and must now hold every property.
 */
export const FORMER_FAILURES: readonly { id: string; format: HarnessFormat; counterexample: string; was: string }[] = [
  {
    id: "transcript-first-line-unreadable",
    format: "claude",
    counterexample:
      '[{"on":"file-bytes","file":0,"op":{"kind":"cut","at":0,"length":1}},{"on":"line-json","file":0,"line":0,"edit":{"kind":"id-collision","other":0}}]',
    was: "the first prompt cut (Claude Code) or deleted (openclaw): repair exited 0 and the API refused a history starting with the assistant",
  },
  {
    id: "transcript-first-line-unreadable",
    format: "openclaw",
    counterexample: '[{"on":"line","file":0,"op":"delete","line":1,"to":0}]',
    was: "the first prompt cut (Claude Code) or deleted (openclaw): repair exited 0 and the API refused a history starting with the assistant",
  },
  {
    id: "json-first-message-unreadable",
    format: "opencode-json",
    counterexample: '[{"on":"file-bytes","file":0,"op":{"kind":"nul-run","at":0,"length":1}}]',
    was: "the first message file of a JSON tree NUL-damaged: repair exited 0 with the history starting with the assistant",
  },
  {
    id: "sqlite-message-moved-out-of-its-session",
    format: "opencode-sqlite",
    counterexample: '[{"on":"row-column","table":"message","row":0,"column":"session_id","to":"real"}]',
    was: "a message row whose session_id became a number: repair exited 0 with the history starting with the assistant",
  },
  {
    id: "json-thinking-not-first-after-repair",
    format: "opencode-json",
    counterexample: '[{"on":"file","file":18,"op":"move","to":22},{"on":"file-json","file":56,"edit":{"kind":"drop-key","key":8}}]',
    was: "a JSON-tree part moved and a key dropped: repair exited 0 with thinking no longer first",
  },
  {
    id: "openclaw-empty-content-after-repair",
    format: "openclaw",
    counterexample:
      '[{"on":"line-json","file":0,"line":22,"edit":{"kind":"drop-key","key":46}},{"on":"line-json","file":0,"line":0,"edit":{"kind":"id-collision","other":0}}]',
    was: "an openclaw line losing its content and an id collision: repair exited 0 with an empty content block left",
  },
  {
    id: "sqlite-null-message-id-crashes-repair",
    format: "opencode-sqlite",
    counterexample: '[{"on":"row-column","table":"message","row":0,"column":"id","to":"null"}]',
    was: "a message row whose id is NULL: repair ended in an internal error",
  },
  {
    id: "sqlite-backup-manifest-unreadable",
    format: "opencode-sqlite",
    counterexample: '[{"on":"row-column","table":"part","row":0,"column":"session_id","to":"blob"}]',
    was: "a part row whose session_id became a blob: the repair wrote a backup session restore refused (it could not be undone)",
  },
  {
    id: "sqlite-blob-part-id",
    format: "opencode-sqlite",
    counterexample: '[{"on":"row-column","table":"part","row":23,"column":"id","to":"blob"}]',
    was: "a part row whose id became a blob: the repair's --json named a change by an object, not an id (found by the soak, FUZZ_SEED=1297346855)",
  },
  {
    id: "sqlite-blob-message-id-without-session",
    format: "opencode-sqlite",
    counterexample: '[{"on":"row-column","table":"part","row":0,"column":"message_id","to":"blob"},{"on":"row","table":"session","row":0,"op":"delete"}]',
    was: "a part row whose message_id became a blob, in a session whose row is gone: the repair wrote a manifest session restore refused (changes.14.messageId an object; the soak, FUZZ_SEED=359225987 FUZZ_PATH=64:1:2:4:4:4, issue 35)",
  },
];
