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
  /** FUZZ_SEED that found it, and the minimal damage fast-check shrank it to (on the fuzz loop's base store). */
  foundBy: string;
  counterexample: string;
  why: string;
}

export const KNOWN_FAILURES: readonly KnownFailure[] = [
  {
    id: "transcript-first-line-unreadable",
    formats: ["claude", "openclaw"],
    property: "rescan-clean",
    detail: /provider-rejects: the API would answer: messages: first message must use the "user" role/,
    // Also openclaw, FUZZ_SEED=1902338268: [{"on":"file-bytes","file":…,"op":{"kind":"cut","at":…,"length":126}},
    // {"on":"line-json","file":0,"line":0,"edit":{"kind":"parent-cycle","other":0}}] (the header and first prompt cut).
    foundBy: "FUZZ_SEED=20261124 (fuzz-claude, case 5)",
    counterexample:
      '[{"on":"file-bytes","file":0,"op":{"kind":"cut","at":0,"length":1}},{"on":"line-json","file":0,"line":0,"edit":{"kind":"id-collision","other":0}}]',
    why:
      "the first line of a transcript (the user's prompt) loses its first byte, so it no longer parses: the repair drops the " +
      "unreadable line and exits 0, and the conversation then starts with the assistant, which the API refuses " +
      "(repair exiting 0 with errors left)",
  },
  {
    id: "json-first-message-unreadable",
    formats: ["opencode-json"],
    property: "rescan-clean",
    detail: /provider-rejects: the API would answer: messages: first message must use the "user" role/,
    foundBy: "FUZZ_SEED=20261124 FUZZ_PATH=10:0:0:0:0:0:0 (fuzz-opencode-json)",
    counterexample: '[{"on":"file-bytes","file":0,"op":{"kind":"nul-run","at":0,"length":1}}]',
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
    counterexample: '[{"on":"row-column","table":"message","row":0,"column":"session_id","to":"real"}]',
    why:
      "the first message row's session_id is damaged (1.5): the session's conversation now starts with the assistant; " +
      "the repair exits 0 without fixing it and the rescan reports provider-rejects (repair exiting 0 with errors left)",
  },
];

export function knownFailure(format: HarnessFormat, failure: Failure): KnownFailure | undefined {
  return KNOWN_FAILURES.find((k) => k.formats.includes(format) && k.property === failure.property && k.detail.test(failure.detail));
}
