// A transcript written the way its agent writes it, opened through the store the CLI uses, for the trim tests that
// plan in-process (tempDir removes the folder when the test file ends).
import type { TranscriptRecords } from "../../src/model/transcript.js";
import { openStore } from "../../src/stores/discover.js";
import { tempDir } from "../cli/run.js";
import { MINUTE, type ClaudeTranscript, type OpenclawTranscript } from "../support/transcript-fixtures.js";

export const START = Date.UTC(2026, 5, 1, 8, 0, 0);
export const NOW = START + 7 * 24 * 60 * MINUTE;

export function loadTranscript(t: ClaudeTranscript | OpenclawTranscript) {
  const file = t.writeTo(tempDir());
  const store = openStore({ store: file });
  return { store, loaded: store.loadSession(t.sessionId, "full") as TranscriptRecords, file };
}
