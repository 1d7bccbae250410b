/**
 * The view rules read, once per session: each store family builds its own (stores/opencode/view.ts,
 * stores/transcript/view.ts) — conversation, live tail, token estimate — so no rule rescans the session for them.
 */
import type { LoadedRecords } from "../model/fixing.js";
import type { SessionView, ViewOptions } from "../model/session-view.js";
import { isTranscript } from "../model/transcript.js";
import { opencodeSessionView } from "../stores/opencode/view.js";
import { transcriptSessionView } from "../stores/transcript/view.js";

export function sessionView(loaded: LoadedRecords, options: ViewOptions): SessionView {
  return isTranscript(loaded) ? transcriptSessionView(loaded, options) : opencodeSessionView(loaded, options);
}

/** A session whose last turn was left unjudged because it is being written: scan and repair say so, never silently. */
export interface LiveSkip {
  id: string;
  reason: "live";
  /** When the session was last written (epoch ms), by its records' own times. */
  updatedAt: number;
}

export function liveSkip(view: SessionView): LiveSkip | undefined {
  if (view.liveTailMessageId === undefined) return undefined;
  const updatedAt = view.opencode?.lastActivity ?? view.transcript?.records.lastActivity ?? view.summary.updated;
  return { id: view.summary.id, reason: "live", updatedAt };
}
