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
  {
    id: "transcript-first-line-unreadable",
    formats: ["claude", "openclaw"],
    property: "rescan-clean",
    detail: /provider-rejects: the API would answer: messages: first message must use the "user" role/,
    // openclaw: found by FUZZ_SEED=1902338268 (126 bytes cut across the header and the first prompt, before the
    // indexes were bounded); recorded here as its plainest form, the first prompt's line deleted.
    foundBy: "FUZZ_SEED=20261124 (fuzz-claude, case 5)",
    counterexamples: {
      claude:
        '[{"on":"file-bytes","file":0,"op":{"kind":"cut","at":0,"length":1}},{"on":"line-json","file":0,"line":0,"edit":{"kind":"id-collision","other":0}}]',
      openclaw: '[{"on":"line","file":0,"op":"delete","line":1,"to":0}]',
    },
    why:
      "the transcript's first prompt no longer parses (Claude Code: its first byte cut) or is gone (openclaw): the repair drops the " +
      "unreadable line and exits 0, and the conversation then starts with the assistant, which the API refuses " +
      "(repair exiting 0 with errors left)",
  },
  {
    id: "json-first-message-unreadable",
    formats: ["opencode-json"],
    property: "rescan-clean",
    detail: /provider-rejects: the API would answer: messages: first message must use the "user" role/,
    foundBy: "FUZZ_SEED=20261124 FUZZ_PATH=10:0:0:0:0:0:0 (fuzz-opencode-json)",
    counterexamples: { "opencode-json": '[{"on":"file-bytes","file":0,"op":{"kind":"nul-run","at":0,"length":1}}]' },
    why:
      "one NUL byte before the first user message's JSON (storage/message/<session>/<first message>.json): the repair " +
      "exits 0 but the session's conversation starts with the assistant, so the rescan reports provider-rejects " +
      "(repair exiting 0 with errors left)",
  },
  {
    id: "sqlite-message-moved-out-of-its-session",
    formats: ["opencode-sqlite"],
    property: "rescan-clean",
    detail: /provider-rejects: the API would answer: messages: first message must use the "user" role/,
    foundBy: "FUZZ_SEED=1902338268 FUZZ_PATH=8:0:1:3 (fuzz-opencode-sqlite)",
    counterexamples: { "opencode-sqlite": '[{"on":"row-column","table":"message","row":0,"column":"session_id","to":"real"}]' },
    why:
      "the first message row's session_id is damaged (1.5): the session's conversation now starts with the assistant; " +
      "the repair exits 0 without fixing it and the rescan reports provider-rejects (repair exiting 0 with errors left)",
  },
  {
    id: "json-thinking-not-first-after-repair",
    formats: ["opencode-json"],
    property: "rescan-clean",
    detail:
      /provider-rejects: the API would answer: messages\.\d+\.content\.0: If an assistant message contains any thinking blocks, the first block must be thinking/,
    foundBy: "npm run soak, FUZZ_SEED=1745634371 FUZZ_PATH=57:9:8 (fuzz-opencode-json)",
    counterexamples: {
      "opencode-json": '[{"on":"file","file":18,"op":"move","to":22},{"on":"file-json","file":56,"edit":{"kind":"drop-key","key":8}}]',
    },
    why:
      "a part file moved into another message's folder plus a key dropped from another part: the repair exits 0 and " +
      "the rescan finds an assistant message whose thinking is not its first block (repair exiting 0 with errors left)",
  },
  {
    id: "openclaw-empty-content-after-repair",
    formats: ["openclaw"],
    property: "rescan-clean",
    detail: /provider-rejects: the API would answer: messages\.\d+: all messages must have non-empty content/,
    foundBy: "npm run soak, FUZZ_SEED=1745634371 FUZZ_PATH=40:1:1:2:11:11:11:11 (fuzz-openclaw)",
    counterexamples: {
      openclaw:
        '[{"on":"line-json","file":0,"line":22,"edit":{"kind":"drop-key","key":46}},{"on":"line-json","file":0,"line":0,"edit":{"kind":"id-collision","other":0}}]',
    },
    why:
      "a key dropped from a message entry (its content) and the header's id given another entry's: the repair exits 0 " +
      "and the rescan finds a message with empty content (repair exiting 0 with errors left)",
  },
  {
    id: "sqlite-null-message-id-crashes-repair",
    formats: ["opencode-sqlite"],
    property: "no-crash",
    detail: /repair reported an internal error: .*Cannot read properties of undefined \(reading 'length'\)/,
    foundBy: "npm run soak, FUZZ_SEED=1021344280 FUZZ_PATH=66:1:2 (fuzz-opencode-sqlite)",
    counterexamples: { "opencode-sqlite": '[{"on":"row-column","table":"message","row":0,"column":"id","to":"null"}]' },
    why:
      "a message row whose id is NULL (SQLite lets a TEXT PRIMARY KEY hold NULL): `session repair --all` ends in " +
      "`internal error: Cannot read properties of undefined (reading 'length')` instead of a finding or a refusal",
  },
  {
    id: "sqlite-backup-manifest-unreadable",
    formats: ["opencode-sqlite"],
    property: "restore-exact",
    detail: /backup-unreadable.*manifest\.json is not valid \(sessions\.\d+: Invalid input: expected string/,
    foundBy: "npm run soak, FUZZ_SEED=1745634371 FUZZ_PATH=161:0:1:3 (fuzz-opencode-sqlite)",
    counterexamples: { "opencode-sqlite": '[{"on":"row-column","table":"part","row":0,"column":"session_id","to":"blob"}]' },
    why:
      "a part row whose session_id is a blob: the repair writes a backup whose manifest names that session as an " +
      "object, then `session restore` refuses its own backup (exit 2, backup-unreadable): the repair cannot be undone",
  },
];

export function knownFailure(format: HarnessFormat, failure: Failure): KnownFailure | undefined {
  return KNOWN_FAILURES.find((k) => k.formats.includes(format) && k.property === failure.property && k.detail.test(failure.detail));
}
