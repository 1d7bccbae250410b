/**
 * openclaw 2026.8 and later as a transcript format: the events in its database are the pi line format its JSONL
 * transcripts hold (header `version: 4`, UUID entry ids), read, viewed and fixed by the shared transcript code. What
 * differs is what this client writes and heals itself (docs/research/openclaw-request.md §0, §E): UUID ids, and an
 * interrupted tool call answered with "No result provided" in every request, never stored.
 */
import { randomUUID } from "node:crypto";
import type { Dialect } from "../transcript/dialect.js";
import type { TranscriptFormat } from "../transcript/format.js";
import { openclawDialect } from "../transcript/openclaw.js";
import { openclawFixesOf } from "../transcript/openclaw-fixes.js";
import { activeBranch } from "./active-path.js";

export const OPENCLAW_SQLITE = "openclaw-sqlite";

/** The text 2026.9 sends for a tool call with no stored result (`transformMessages` of @openclaw/ai). */
export const OPENCLAW_NO_RESULT = "No result provided";

const dialect: Dialect = {
  ...openclawDialect,
  name: OPENCLAW_SQLITE,
  // Its lines come from rows, never from a file whose head would be sniffed.
  sniff: () => false,
  copes: {
    missingResult: `openclaw 2026.9 sends "${OPENCLAW_NO_RESULT}" for it in every request, so recover leaves it alone`,
    // Measured (issue 40, phantom-tool-result): repairToolCallInputs drops a call with no id, and
    // repairToolUseResultPairing every result that answers no call, before each request. Not stopping the resume,
    // they are warnings; recover still mends them in the database (a dropped result, a call and its result given one
    // id), as its fixes of a torn row leave results whose calls went with it.
    orphanResult: "openclaw 2026.9 drops it before sending",
    emptyCallId: "openclaw 2026.9 drops the call before sending",
    // Measured (issue 40, duplicate-ids): the occurrence-aware id rewrite (tool-call-id-*.mjs) gives a reused call id
    // and its result one of their own, and the pairing drops a second result for an answered call.
    duplicateCallId: "openclaw 2026.9 gives the later call and its result an id of their own before sending",
    secondResult: "openclaw 2026.9 drops it before sending",
    mendsEveryTime: ["missingResult"],
    // Measured (issue 39): every history image goes out scaled to fit 1,200 px.
    imagesFitTo: 1200,
  },
  // The client sends its active branch (active-path.ts: leaf controls, side appends), then pi's compaction cut.
  sentLines(chain, all) {
    const values = all.map((line) => line.value);
    const branch = activeBranch(values).indexes.map((i) => all[i]!);
    return openclawDialect.sentLines(branch.length > 0 ? branch : chain, all);
  },
};

export const openclawSqliteFormat: TranscriptFormat = {
  dialect,
  fixes: openclawFixesOf({ entryId: randomUUID, missingResult: OPENCLAW_NO_RESULT }),
  // No files to find: the database is the store (adapter.ts finds it).
  layout: { homes: [], flat: [], storeOf: (target) => target, sessionIdOf: () => undefined },
  rows: true,
};
